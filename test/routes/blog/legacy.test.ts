import t from 'tap';
import { json, keyFor, sessionFor } from '../../helper.js';
import { changeBlogSettings } from '../../../commands/blog/settings-handlers.js';
import { readBlogSettings } from '../../../queries/blog/settings.js';
import { buildBlogApp, NOW_TEXT } from './fixture.js';

type Legacy = Record<string, unknown>;
interface Envelope {
  data: Legacy[];
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
}
const legacyIds = (body: string) => json<Envelope>({ body } as never).data.map((p) => p.id);

t.test('legacy blog endpoints', async (t) => {
  const { app, runtime } = await buildBlogApp(t);
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });
  const editorCookie = await sessionFor(app, 'editor');
  const researcherCookie = await sessionFor(app, 'researcher');

  t.test('list: published only (scheduled included), newest first, the envelope', async (t) => {
    const res = await get('/api/blog/posts');
    t.equal(res.statusCode, 200);
    const body = json<Envelope>(res);
    t.same(
      body.data.map((p) => p.id),
      [4, 5, 1, 6],
    );
    t.match(body, { total: 4, page: 1, per_page: 10, total_pages: 1 });
    t.same(body.data[2], {
      id: 1,
      title: 'Hello world',
      slug: 'hello',
      excerpt: '<em>Hi</em>',
      content: '<p>First post</p>',
      status: 'published',
      author_id: 1,
      category_id: 1,
      tags: ['maps'],
      published_at: '2026-01-02 03:04:05',
      created_at: NOW_TEXT,
      updated_at: NOW_TEXT,
    });
    t.same(
      legacyIds((await get('/api/blog/posts', { cookie: editorCookie })).body),
      [4, 5, 1, 6],
      'the same for a logged-in editor',
    );
  });

  t.test('list: page, per_page (max 100), filters', async (t) => {
    const page = json<Envelope>(await get('/api/blog/posts?per_page=3&page=2'));
    t.same(
      page.data.map((p) => p.id),
      [6],
    );
    t.match(page, { total: 4, page: 2, per_page: 3, total_pages: 2 });
    t.equal(json<Envelope>(await get('/api/blog/posts?per_page=500')).per_page, 100, 'per_page above 100 is 100');
    t.same(legacyIds((await get('/api/blog/posts?tag_slug=history')).body), [4, 5]);
    t.same(legacyIds((await get('/api/blog/posts?category_slug=events')).body), [4, 5]);
    t.same(legacyIds((await get('/api/blog/posts?category_slug=none')).body), []);
    t.same(legacyIds((await get('/api/blog/posts?author_id=1')).body), [4, 1]);
    t.same(legacyIds((await get('/api/blog/posts?search=keeper')).body), [5]);
    t.same(legacyIds((await get('/api/blog/posts?search=Not%20yet')).body), [], 'drafts are never listed');
    t.same(legacyIds((await get('/api/blog/posts?site_id=2')).body), [4, 5, 1, 6], 'no site filter');
    const bad = await get('/api/blog/posts?page=0');
    t.equal(bad.statusCode, 422);
    t.same(Object.keys(json(bad) as object), ['error'], 'plain error body');
  });

  t.test('one post: published (even scheduled) or 404', async (t) => {
    t.equal(json<Legacy>(await get('/api/blog/posts/4')).title, 'Future event');
    for (const id of [2, 3, 999]) {
      const res = await get(`/api/blog/posts/${id}`, { cookie: editorCookie });
      t.equal(res.statusCode, 404, `post ${id}`);
      t.same(json(res), { error: 'Post not found.' });
    }
  });

  t.test('create: 401 anonymous and with API keys; 201 for any logged-in role', async (t) => {
    const payload = { title: 'Legacy', content: '<p>c</p>' };
    const anonymous = await app.inject({ method: 'POST', url: '/api/blog/posts', payload });
    t.equal(anonymous.statusCode, 401);
    t.same(json(anonymous), { error: 'Log in to create posts.' });
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/blog/posts', payload: {} })).statusCode,
      401,
      '401 before validation',
    );
    t.equal(
      (await app.inject({ method: 'POST', url: `/api/blog/posts?${keyFor('global_admin')}`, payload })).statusCode,
      401,
      'API keys are not accepted',
    );
    for (const role of ['global_admin', 'site_admin', 'reviewer', 'author'] as const) {
      const cookie = await sessionFor(app, role);
      const created = await app.inject({
        method: 'POST',
        url: '/api/blog/posts',
        headers: { cookie },
        payload: { ...payload, title: `By ${role}` },
      });
      t.equal(created.statusCode, 201, `${role} creates`);
    }
    const res = await app.inject({
      method: 'POST',
      url: '/api/blog/posts',
      headers: { cookie: researcherCookie },
      payload,
    });
    t.equal(res.statusCode, 201);
    const post = json<Legacy>(res);
    t.match(post, {
      title: 'Legacy',
      slug: 'legacy',
      content: '<p>c</p>',
      status: 'draft',
      author_id: 6,
      category_id: null,
      tags: [],
      published_at: null,
      created_at: NOW_TEXT,
    });
  });

  t.test('create: optional fields, tags as array or comma-separated string', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/blog/posts',
      headers: { cookie: editorCookie },
      payload: {
        title: 'Tagged',
        content: 'x',
        status: 'published',
        excerpt: 'e',
        category_id: 1,
        tags: 'maps, New Tag ,, ',
        published_at: '2026-02-02 02:02:02',
        slug: 'tagged-post',
      },
    });
    t.equal(res.statusCode, 201);
    t.match(json(res), {
      status: 'published',
      excerpt: 'e',
      category_id: 1,
      tags: ['maps', 'New Tag'],
      published_at: '2026-02-02 02:02:02',
      slug: 'tagged-post',
    });
    const array = await app.inject({
      method: 'POST',
      url: '/api/blog/posts',
      headers: { cookie: editorCookie },
      payload: { title: 'Arr', content: 'x', tags: ['a', 'b'], status: 'published' },
    });
    t.match(json(array), { tags: ['a', 'b'], published_at: NOW_TEXT });
    const form = await app.inject({
      method: 'POST',
      url: '/api/blog/posts',
      headers: { cookie: editorCookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'title=Form&content=body&tags=one%2Ctwo',
    });
    t.equal(form.statusCode, 201);
    t.same(json<Legacy>(form).tags, ['one', 'two']);
  });

  t.test('create: missing or bad fields are 422 with a plain error', async (t) => {
    for (const payload of [
      { content: 'x' },
      { title: 'x' },
      { title: '', content: 'x' },
      { title: 'x', content: 'x', status: 'live' },
      { title: 'x', content: 'x', category_id: 99 },
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/blog/posts',
        headers: { cookie: editorCookie },
        payload,
      });
      t.equal(res.statusCode, 422, JSON.stringify(payload));
      t.type(json<{ error: string }>(res).error, 'string');
    }
  });

  t.test('comments: 201 pending without login, 422 as documented, 405 other methods', async (t) => {
    const payload = { author_name: 'Vi', author_email: 'vi@example.org', body: 'Hello <b>there</b>' };
    const res = await app.inject({ method: 'POST', url: '/api/blog/posts/1/comments', payload });
    t.equal(res.statusCode, 201);
    const created = json<{ id: number; status: string }>(res);
    t.same(Object.keys(created).sort(), ['id', 'status']);
    t.equal(created.status, 'pending');
    t.type(created.id, 'number');
    const stored = json<Legacy>(await app.inject({ url: `/api/blog_comments/${created.id}?${keyFor('editor')}` }));
    t.match(stored, { 'o:post_id': 1, 'o:status': 'pending', 'o:author_email': 'vi@example.org' });
    for (const field of ['author_name', 'author_email', 'body']) {
      const partial: Record<string, string> = { ...payload };
      delete partial[field];
      const missing = await app.inject({ method: 'POST', url: '/api/blog/posts/1/comments', payload: partial });
      t.equal(missing.statusCode, 422, `without ${field}`);
      t.match(json(missing), { error: new RegExp(field) });
    }
    for (const id of [2, 3, 4]) {
      const unpublished = await app.inject({ method: 'POST', url: `/api/blog/posts/${id}/comments`, payload });
      t.equal(unpublished.statusCode, 422, `post ${id} is not published (or scheduled)`);
      t.same(json(unpublished), { error: 'The post is not published.' });
    }
    const unknown = await app.inject({ method: 'POST', url: '/api/blog/posts/999/comments', payload });
    t.equal(unknown.statusCode, 422, 'an id that does not exist answers as an unpublished post: no existence oracle');
    t.same(json(unknown), { error: 'The post is not published.' });
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const other = await app.inject({ method, url: '/api/blog/posts/1/comments' });
      t.equal(other.statusCode, 405, method);
      t.equal(other.headers.allow, 'POST');
      t.same(json(other), { error: 'Method not allowed.' });
    }
    t.equal((await app.inject({ method: 'DELETE', url: '/api/blog/posts/1' })).statusCode, 405);
  });

  t.test('comments are refused with 403 once the blog setting disables them', async (t) => {
    await changeBlogSettings(runtime.commandContext(null), { comments_enabled: false });
    const payload = { author_name: 'Vi', author_email: 'vi@example.org', body: 'Hi' };
    const res = await app.inject({ method: 'POST', url: '/api/blog/posts/1/comments', payload });
    t.equal(res.statusCode, 403);
    t.same(json(res), { error: 'Comments are disabled.' });
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/blog/posts/1/comments', payload: {} })).statusCode,
      403,
      'before validation',
    );
    const native = await app.inject({ method: 'POST', url: '/api/blog_comments', payload: { ...payload, post_id: 1 } });
    t.equal(native.statusCode, 201, 'the native resource does not check the setting');
  });
});

t.test('the comments setting comes from the fixture', async (t) => {
  const { runtime } = await buildBlogApp(t, { blog: { settings: { comments_enabled: false } } });
  t.same(await readBlogSettings(runtime.documents), { comments_enabled: false });
});
