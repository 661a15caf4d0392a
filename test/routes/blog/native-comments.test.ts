import t from 'tap';
import { json } from '../../helper.js';
import { auth, buildBlogApp, CALLERS, ids, isEditor, NOW_TEXT, type Caller } from './fixture.js';

type Rep = Record<string, unknown>;
const comment = {
  post_id: 1,
  author_name: 'Eve',
  author_email: 'eve@example.org',
  body: 'Lovely <img src=x onerror=alert(1)> post',
};

t.test('comments', async (t) => {
  const { app } = await buildBlogApp(t);
  const send = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    caller: Caller = 'anonymous',
    payload?: object,
  ) =>
    app.inject({
      method,
      url: `${url}${auth(caller, url.includes('?') ? '&' : '?')}`,
      ...(payload ? { payload } : {}),
    });

  t.test('list: approved only and no email below Editor; everything for Editor', async (t) => {
    for (const caller of CALLERS) {
      for (const query of ['', '?status=pending', '?status=spam', '?status=whatever']) {
        const res = await send('GET', `/api/blog_comments${query}`, caller);
        if (isEditor(caller) && query === '?status=whatever') {
          t.equal(res.statusCode, 422, `${caller}: an unknown status is refused for Editor`);
          continue;
        }
        t.equal(res.statusCode, 200, `${caller} ${query}`);
        const list = json<Rep[]>(res);
        if (isEditor(caller)) {
          const expected = query === '?status=pending' ? [2] : query === '?status=spam' ? [3] : [4, 3, 2, 1];
          t.same(ids(res.body), expected, `${caller} ${query}`);
          t.ok(
            list.every((c) => typeof c['o:author_email'] === 'string'),
            'emails shown',
          );
        } else {
          t.same(ids(res.body), [4, 1], `${caller} ${query}: approved only, status ignored`);
          t.ok(
            list.every((c) => !('o:author_email' in c)),
            'emails omitted',
          );
        }
        t.equal(res.headers['platform-total-results'], String(list.length));
      }
    }
    t.same(ids((await send('GET', '/api/blog_comments?post_id=5', 'editor')).body), [4, 3]);
    t.same(ids((await send('GET', '/api/blog_comments?post_id=5')).body), [4]);
    t.same(ids((await send('GET', '/api/blog_comments?post_id=5&status=approved', 'editor')).body), [4]);
    t.equal((await send('GET', '/api/blog_comments?post_id=abc')).statusCode, 422);
  });

  t.test('pagination: per_page default 50, page, total', async (t) => {
    const res = await send('GET', '/api/blog_comments?per_page=1&page=2', 'editor');
    t.same(ids(res.body), [3]);
    t.equal(res.headers['platform-total-results'], '4');
    t.match(String((await send('GET', '/api/blog_comments', 'editor')).headers.link), /per_page=50/);
  });

  t.test('one comment: pending and spam are 404 below Editor', async (t) => {
    for (const caller of CALLERS) {
      for (const id of [1, 2, 3, 4]) {
        const expected = isEditor(caller) || id === 1 || id === 4 ? 200 : 404;
        t.equal(
          (await send('GET', `/api/blog_comments/${id}`, caller)).statusCode,
          expected,
          `${caller} reads comment ${id}`,
        );
      }
    }
    t.same(json(await send('GET', '/api/blog_comments/1', 'editor')), {
      '@context': 'http://test.local/api-context',
      '@id': 'http://test.local/api/blog_comments/1',
      '@type': 'o:BlogComment',
      'o:id': 1,
      'o:post_id': 1,
      'o:author_name': 'Bo',
      'o:author_email': 'bo@example.org',
      'o:body': 'Nice',
      'o:status': 'approved',
      'o:posted_at': NOW_TEXT,
    });
    t.notOk('o:author_email' in json<Rep>(await send('GET', '/api/blog_comments/1', 'author')));
  });

  t.test('bodies are never answered as active HTML', async (t) => {
    const body = json<Rep>(await send('GET', '/api/blog_comments/4'))['o:body'];
    t.equal(body, '&lt;script&gt;alert(1)&lt;/script&gt; &amp; more');
    t.notMatch(String(body), /</);
  });

  t.test('create: open to everyone, always pending', async (t) => {
    for (const caller of CALLERS) {
      const res = await send('POST', '/api/blog_comments', caller, { ...comment, status: 'approved' });
      t.equal(res.statusCode, 201, caller);
      const created = json<Rep>(res);
      t.equal(created['o:status'], 'pending', `${caller}: pending whatever was sent`);
      t.equal(created['o:post_id'], 1);
      t.equal('o:author_email' in created, isEditor(caller), 'email only for Editor');
      t.notMatch(String(created['o:body']), /</, 'escaped');
      t.equal(
        (await send('GET', `/api/blog_comments/${created['o:id']}`)).statusCode,
        404,
        'not public until approved',
      );
    }
    const stored = json<Rep>(await send('GET', '/api/blog_comments?per_page=1', 'editor'))[0] as unknown as Rep;
    t.equal(stored['o:body'], 'Lovely &lt;img src=x onerror=alert(1)&gt; post');
  });

  t.test('create: missing fields and unpublished posts are validation errors', async (t) => {
    for (const field of ['post_id', 'author_name', 'author_email', 'body']) {
      const payload: Record<string, unknown> = { ...comment };
      delete payload[field];
      const res = await send('POST', '/api/blog_comments', 'anonymous', payload);
      t.equal(res.statusCode, 422, `without ${field}`);
      t.same(json(res), { errors: { [field]: ['This field is required.'] } });
    }
    t.equal(
      (await send('POST', '/api/blog_comments', 'anonymous', { ...comment, author_email: 'not-an-email' })).statusCode,
      422,
    );
    t.equal((await send('POST', '/api/blog_comments', 'anonymous', { ...comment, body: '   ' })).statusCode, 422);
    for (const postId of [2, 3, 4, 999]) {
      const res = await send('POST', '/api/blog_comments', 'editor', { ...comment, post_id: postId });
      t.equal(res.statusCode, 422, `post ${postId} takes no comments`);
      t.same(json(res), { errors: { post_id: ['The post is not published.'] } });
    }
  });

  t.test('moderation: Editor and above, only approved or spam', async (t) => {
    for (const caller of CALLERS) {
      const res = await send('PATCH', '/api/blog_comments/2', caller, { status: 'approved' });
      t.equal(res.statusCode, isEditor(caller) ? 200 : 403, caller);
    }
    t.equal((await send('GET', '/api/blog_comments/2')).statusCode, 200, 'approved: public');
    const spam = await send('PUT', '/api/blog_comments/2', 'site_admin', {
      status: 'spam',
      body: 'rewritten',
      author_name: 'X',
    });
    t.equal(spam.statusCode, 200);
    t.match(json(spam), { 'o:status': 'spam', 'o:body': 'Waiting', 'o:author_name': 'Cy' }, 'other fields ignored');
    for (const status of ['pending', 'deleted', '']) {
      const res = await send('PATCH', '/api/blog_comments/2', 'editor', { status });
      t.equal(res.statusCode, 422, `status "${status}" rejected`);
      t.ok(json<{ errors: Record<string, unknown> }>(res).errors.status);
    }
    t.equal((await send('PATCH', '/api/blog_comments/2', 'editor', {})).statusCode, 422, 'status is required');
    t.equal((await send('PATCH', '/api/blog_comments/999', 'editor', { status: 'approved' })).statusCode, 404);
  });

  t.test('delete: Editor and above', async (t) => {
    for (const caller of CALLERS.filter((c) => !isEditor(c))) {
      t.equal((await send('DELETE', '/api/blog_comments/1', caller)).statusCode, 403, caller);
    }
    const res = await send('DELETE', '/api/blog_comments/1', 'editor');
    t.equal(res.statusCode, 200);
    t.equal(json<Rep>(res)['o:id'], 1);
    t.equal((await send('GET', '/api/blog_comments/1', 'editor')).statusCode, 404);
    t.equal((await send('DELETE', '/api/blog_comments/1', 'editor')).statusCode, 404);
  });
});
