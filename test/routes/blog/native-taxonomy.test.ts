import t from 'tap';
import { json } from '../../helper.js';
import { auth, buildBlogApp, CALLERS, ids, isEditor, type Caller } from './fixture.js';

type Rep = Record<string, unknown>;

t.test('categories and tags', async (t) => {
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

  t.test('everyone reads categories, ordered by name, with the total', async (t) => {
    for (const caller of CALLERS) {
      const res = await send('GET', '/api/blog_categories', caller);
      t.equal(res.statusCode, 200, caller);
      t.same(ids(res.body), [3, 2, 1], `${caller}: Archive, events, News (case-insensitive)`);
      t.equal(res.headers['platform-total-results'], '3');
    }
    const one = await send('GET', '/api/blog_categories/1');
    t.match(json(one), {
      '@id': 'http://test.local/api/blog_categories/1',
      '@type': 'o:BlogCategory',
      'o:id': 1,
      'o:name': 'News',
      'o:slug': 'news',
      'o:description': 'What is new',
    });
    for (const caller of CALLERS)
      t.equal((await send('GET', '/api/blog_categories/2', caller)).statusCode, 200, `${caller} reads one`);
    t.equal(json<Rep>(await send('GET', '/api/blog_categories/3'))['o:slug'], 'archive', 'slug generated on import');
    t.equal((await send('GET', '/api/blog_categories/99')).statusCode, 404);
    const paged = await send('GET', '/api/blog_categories?per_page=2&page=2');
    t.same(ids(paged.body), [1]);
    t.equal(paged.headers['platform-total-results'], '3');
  });

  t.test('only Editor and above write categories', async (t) => {
    for (const caller of CALLERS) {
      const res = await send('POST', '/api/blog_categories', caller, { name: `Cat ${caller}` });
      t.equal(res.statusCode, isEditor(caller) ? 201 : 403, `${caller} creates`);
      if (!isEditor(caller)) {
        t.equal((await send('PATCH', '/api/blog_categories/1', caller, { name: 'x' })).statusCode, 403);
        t.equal((await send('PUT', '/api/blog_categories/1', caller, { name: 'x' })).statusCode, 403);
        t.equal((await send('DELETE', '/api/blog_categories/1', caller)).statusCode, 403);
      }
    }
  });

  t.test('category create: slug generated and unique; validation 422', async (t) => {
    const a = json<Rep>(await send('POST', '/api/blog_categories', 'editor', { name: 'Local History' }));
    t.equal(a['o:slug'], 'local-history');
    t.equal(a['o:description'], '');
    const b = json<Rep>(
      await send('POST', '/api/blog_categories', 'editor', { name: 'Local history!', description: 'again' }),
    );
    t.equal(b['o:slug'], 'local-history-2');
    for (const [payload, field] of [
      [{}, 'name'],
      [{ name: '  ' }, 'name'],
      [{ name: 'x', slug: 'news' }, 'slug'],
      [{ name: 'x', slug: 'bad slug' }, 'slug'],
    ] as [object, string][]) {
      const res = await send('POST', '/api/blog_categories', 'editor', payload);
      t.equal(res.statusCode, 422, JSON.stringify(payload));
      t.ok(json<{ errors: Record<string, unknown> }>(res).errors[field], field);
    }
  });

  t.test('category update changes only the fields sent', async (t) => {
    const res = await send('PATCH', '/api/blog_categories/2', 'editor', { description: 'Things happening' });
    t.equal(res.statusCode, 200);
    t.match(json(res), { 'o:name': 'events', 'o:slug': 'events', 'o:description': 'Things happening' });
    const renamed = json<Rep>(
      await send('PUT', '/api/blog_categories/2', 'editor', { name: 'Events', slug: 'whats-on' }),
    );
    t.match(renamed, { 'o:name': 'Events', 'o:slug': 'whats-on' });
    const post = json<Rep>(await send('GET', '/api/blog_posts/5'));
    t.equal(post['o:category_slug'], 'whats-on', 'posts show the new slug');
    t.equal((await send('PATCH', '/api/blog_categories/99', 'editor', { name: 'x' })).statusCode, 404);
  });

  t.test('category delete makes its posts uncategorised', async (t) => {
    const res = await send('DELETE', '/api/blog_categories/1', 'editor');
    t.equal(res.statusCode, 200);
    t.equal(json<Rep>(res)['o:name'], 'News');
    t.equal((await send('GET', '/api/blog_categories/1')).statusCode, 404);
    for (const id of [1, 2]) {
      const post = json<Rep>(await send('GET', `/api/blog_posts/${id}`, 'editor'));
      t.match(
        post,
        { 'o:category_id': null, 'o:category_name': null, 'o:category_slug': null },
        `post ${id} uncategorised`,
      );
    }
    t.same(ids((await send('GET', '/api/blog_posts?category_id=1', 'editor')).body), []);
    t.equal((await send('DELETE', '/api/blog_categories/1', 'editor')).statusCode, 404);
  });

  t.test('tags: everyone reads, ordered by name', async (t) => {
    for (const caller of CALLERS) {
      const res = await send('GET', '/api/blog_tags', caller);
      t.equal(res.statusCode, 200);
      t.same(
        json<Rep[]>(res).map((tag) => [tag['o:name'], tag['o:slug']]),
        [
          ['history', 'history'],
          ['maps', 'maps'],
        ],
        `${caller}: History merged into history`,
      );
      t.equal(res.headers['platform-total-results'], '2');
    }
    const id = (json<Rep[]>(await send('GET', '/api/blog_tags'))[0] as { 'o:id': number })['o:id'];
    for (const caller of CALLERS) {
      t.match(
        json(await send('GET', `/api/blog_tags/${id}`, caller)),
        { '@type': 'o:BlogTag', 'o:id': id, 'o:name': 'history', 'o:slug': 'history' },
        caller,
      );
    }
    t.equal((await send('GET', '/api/blog_tags/99')).statusCode, 404);
  });

  t.test('tags have no write operations: 405 with Allow, for every role', async (t) => {
    for (const caller of ['global_admin', 'anonymous'] as Caller[]) {
      for (const [method, url] of [
        ['POST', '/api/blog_tags'],
        ['PUT', '/api/blog_tags/1'],
        ['PATCH', '/api/blog_tags/1'],
        ['DELETE', '/api/blog_tags/1'],
        ['POST', '/api/blog_tags/1'],
        ['DELETE', '/api/blog_tags'],
      ] as const) {
        const res = await send(method, url, caller, method === 'DELETE' ? undefined : { name: 'x' });
        t.equal(res.statusCode, 405, `${caller} ${method} ${url}`);
        t.equal(res.headers.allow, 'GET');
        t.match(json(res), { errors: { error: /no create, update or delete/ } });
      }
    }
    t.equal(json<unknown[]>(await send('GET', '/api/blog_tags')).length, 2, 'nothing changed');
  });

  t.test('every blog route is in the OpenAPI document', async (t) => {
    const doc = json<{ paths: Record<string, Record<string, { tags?: string[] }>> }>(
      await app.inject({ url: '/api/docs.json' }),
    );
    const expected: Record<string, string[]> = {
      '/api/blog_posts': ['get', 'post'],
      '/api/blog_posts/{id}': ['get', 'put', 'patch', 'delete'],
      '/api/blog_categories': ['get', 'post'],
      '/api/blog_categories/{id}': ['get', 'put', 'patch', 'delete'],
      '/api/blog_tags': ['get', 'post', 'put', 'patch', 'delete'],
      '/api/blog_tags/{id}': ['get', 'post', 'put', 'patch', 'delete'],
      '/api/blog_comments': ['get', 'post'],
      '/api/blog_comments/{id}': ['get', 'put', 'patch', 'delete'],
      '/api/blog/posts': ['get', 'post'],
      '/api/blog/posts/{id}': ['get'],
      '/api/blog/posts/{id}/comments': ['post'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods)
        t.ok(doc.paths[path]?.[method]?.tags?.length, `${method.toUpperCase()} ${path} documented`);
    }
  });
});
