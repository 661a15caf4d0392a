import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { blogModule } from '../../../app/modules/blog.js';
import { usersModule } from '../../../app/modules/core.js';
import { platformModule } from '../../../app/modules/platform.js';
import { createRuntime } from '../../../app/runtime.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { json } from '../../helper.js';
import {
  ALL_POSTS_NEWEST_FIRST,
  auth,
  buildBlogApp,
  CALLERS,
  ids,
  isEditor,
  NOW,
  NOW_TEXT,
  PUBLIC_POSTS,
  type Caller,
} from './fixture.js';

type Post = Record<string, unknown>;

t.test('reading posts', async (t) => {
  const { app } = await buildBlogApp(t);
  const get = (url: string, caller: Caller = 'anonymous') =>
    app.inject({ url: `${url}${auth(caller, url.includes('?') ? '&' : '?')}` });

  t.test('the representation has every field of the seed', async (t) => {
    const res = await get('/api/blog_posts/1');
    t.equal(res.statusCode, 200);
    t.same(json(res), {
      '@context': 'http://test.local/api-context',
      '@id': 'http://test.local/api/blog_posts/1',
      '@type': 'o:BlogPost',
      'o:id': 1,
      'o:title': 'Hello world',
      'o:slug': 'hello',
      'o:excerpt': '<em>Hi</em>',
      'o:content': '<p>First post</p>',
      'o:status': 'published',
      'o:author_id': 1,
      'o:author_name': 'Gail Global',
      'o:category_id': 1,
      'o:category_name': 'News',
      'o:category_slug': 'news',
      'o:featured_image_asset_id': null,
      'o:featured_image_url': null,
      'o:published_at': '2026-01-02 03:04:05',
      'o:created_at': NOW_TEXT,
      'o:updated_at': NOW_TEXT,
      'o:tags': [{ id: 1, name: 'maps', slug: 'maps' }],
      'o:site_ids': [1],
    });
  });

  t.test('list: below Editor gets published, not scheduled; Editor and above get everything', async (t) => {
    for (const caller of CALLERS) {
      const res = await get('/api/blog_posts', caller);
      t.equal(res.statusCode, 200, caller);
      const expected = isEditor(caller) ? ALL_POSTS_NEWEST_FIRST : PUBLIC_POSTS;
      t.same(ids(res.body), expected, `${caller} sees ${expected}`);
      t.equal(res.headers['platform-total-results'], String(expected.length));
    }
  });

  t.test('one post: draft, pending and scheduled are 404 below Editor', async (t) => {
    for (const caller of CALLERS) {
      for (const id of [1, 2, 3, 4, 5, 6]) {
        const expected = isEditor(caller) || PUBLIC_POSTS.includes(id) ? 200 : 404;
        t.equal(
          (await get(`/api/blog_posts/${id}`, caller)).statusCode,
          expected,
          `${caller} reads post ${id}: ${expected}`,
        );
      }
    }
    const missing = await get('/api/blog_posts/999', 'editor');
    t.equal(missing.statusCode, 404);
    t.same(json(missing), { errors: { error: 'Blog post not found.' } });
  });

  t.test('status and exclude_future are ignored below Editor, honoured for Editor', async (t) => {
    for (const query of [
      'status=draft',
      'status=bogus',
      'exclude_future=0',
      'exclude_future=nonsense',
      'status=pending&exclude_future=false',
    ]) {
      t.same(ids((await get(`/api/blog_posts?${query}`, 'author')).body), PUBLIC_POSTS, `author: ${query} ignored`);
      t.same(ids((await get(`/api/blog_posts?${query}`)).body), PUBLIC_POSTS, `anonymous: ${query} ignored`);
    }
    t.same(ids((await get('/api/blog_posts?status=draft', 'editor')).body), [2]);
    t.same(ids((await get('/api/blog_posts?status=pending', 'editor')).body), [3]);
    t.same(ids((await get('/api/blog_posts?status=published', 'editor')).body), [4, 5, 1, 6]);
    t.same(ids((await get('/api/blog_posts?status=published&exclude_future=1', 'editor')).body), PUBLIC_POSTS);
    t.same(ids((await get('/api/blog_posts?status=published&exclude_future=true', 'editor')).body), PUBLIC_POSTS);
    t.same(ids((await get('/api/blog_posts?status=published&exclude_future=0', 'editor')).body), [4, 5, 1, 6]);
    t.same(
      ids((await get('/api/blog_posts?exclude_future=true', 'editor')).body),
      [3, 2, 5, 1, 6],
      'drafts without a date stay',
    );
    const bad = await get('/api/blog_posts?status=bogus', 'editor');
    t.equal(bad.statusCode, 422);
    t.ok(json<{ errors: Record<string, string[]> }>(bad).errors.status);
    t.equal((await get('/api/blog_posts?exclude_future=maybe', 'editor')).statusCode, 422);
  });

  t.test('filters: site, category (slug beats id), tag, author, search', async (t) => {
    t.same(ids((await get('/api/blog_posts?site_id=1')).body), [1, 6]);
    t.same(ids((await get('/api/blog_posts?site_id=2')).body), [5, 6]);
    t.same(ids((await get('/api/blog_posts?site_id=1', 'editor')).body), [4, 2, 1, 6]);
    t.same(ids((await get('/api/blog_posts?category_id=2')).body), [5]);
    t.same(ids((await get('/api/blog_posts?category_id=2', 'editor')).body), [4, 3, 5]);
    t.same(ids((await get('/api/blog_posts?category_slug=news')).body), [1]);
    t.same(
      ids((await get('/api/blog_posts?category_slug=news&category_id=2')).body),
      [1],
      'category_slug takes precedence',
    );
    t.same(
      ids((await get('/api/blog_posts?category_slug=nothing&category_id=2')).body),
      [],
      'an unknown slug matches nothing',
    );
    t.same(ids((await get('/api/blog_posts?tag_slug=maps')).body), [5, 1]);
    t.same(ids((await get('/api/blog_posts?tag_slug=history')).body), [5]);
    t.same(ids((await get('/api/blog_posts?tag_slug=history', 'editor')).body), [4, 5]);
    t.same(ids((await get('/api/blog_posts?author_id=5')).body), [5]);
    t.same(ids((await get('/api/blog_posts?author_id=5', 'editor')).body), [3, 5]);
    t.same(ids((await get('/api/blog_posts?search=HELLO')).body), [1], 'title, case-insensitive');
    t.same(ids((await get('/api/blog_posts?search=needle')).body), [6], 'excerpt');
    t.same(ids((await get('/api/blog_posts?search=lighthouse%20keeper')).body), [5], 'content');
    t.same(ids((await get('/api/blog_posts?search=not%20yet', 'editor')).body), [2]);
    t.same(ids((await get('/api/blog_posts?search=not%20yet')).body), [], 'drafts are not found below Editor');
    t.same(ids((await get('/api/blog_posts?tag_slug=maps&site_id=2&search=keeper')).body), [5], 'filters combine');
    for (const bad of ['site_id=abc', 'category_id=0', 'author_id=x', 'page=0', 'per_page=0']) {
      const res = await get(`/api/blog_posts?${bad}`);
      t.equal(res.statusCode, 422, `${bad} is refused`);
      t.ok(json<{ errors: object }>(res).errors);
    }
  });

  t.test('pagination: page, per_page (default 10, above 100 treated as 100), total and Link', async (t) => {
    const first = await get('/api/blog_posts?per_page=2&page=1', 'editor');
    t.same(ids(first.body), [4, 3]);
    t.equal(first.headers['platform-total-results'], '6');
    t.match(String(first.headers.link), /rel="next"/);
    t.same(ids((await get('/api/blog_posts?per_page=2&page=3', 'editor')).body), [1, 6]);
    t.same(ids((await get('/api/blog_posts?per_page=2&page=4', 'editor')).body), []);
    const big = await get('/api/blog_posts?per_page=1000', 'editor');
    t.equal(big.statusCode, 200);
    t.match(String(big.headers.link), /per_page=100/);
    t.same(ids((await get('/api/blog_posts?page=2')).body), [], 'default per_page is 10');
  });
});

t.test('writing posts', async (t) => {
  const { app } = await buildBlogApp(t);
  const send = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, caller: Caller, payload?: object) =>
    app.inject({ method, url: `${url}${auth(caller)}`, ...(payload ? { payload } : {}) });

  t.test('only Editor and above write; others get 403 before validation', async (t) => {
    for (const caller of CALLERS) {
      const create = await send('POST', '/api/blog_posts', caller, { title: `By ${caller}` });
      t.equal(create.statusCode, isEditor(caller) ? 201 : 403, `${caller} creates`);
      if (!isEditor(caller)) {
        t.same(json(create), { errors: { error: 'Editor or above is required for this operation.' } });
        t.equal(
          (await send('POST', '/api/blog_posts', caller, {})).statusCode,
          403,
          `${caller}: 403 even for a bad body`,
        );
        t.equal((await send('PATCH', '/api/blog_posts/1', caller, { title: 'x' })).statusCode, 403);
        t.equal((await send('PUT', '/api/blog_posts/1', caller, { title: 'x' })).statusCode, 403);
        t.equal((await send('DELETE', '/api/blog_posts/1', caller)).statusCode, 403);
      }
    }
    t.equal((await send('PATCH', '/api/blog_posts/999', 'editor', { title: 'x' })).statusCode, 404);
    t.equal((await send('DELETE', '/api/blog_posts/999', 'editor')).statusCode, 404);
  });

  t.test('create: draft by default, author is the caller, slug from the title, kept unique', async (t) => {
    const res = await send('POST', '/api/blog_posts', 'site_admin', { title: 'Hello World!' });
    t.equal(res.statusCode, 201);
    const post = json<Post>(res);
    t.equal(post['o:status'], 'draft');
    t.equal(post['o:author_id'], 2);
    t.equal(post['o:author_name'], 'Sid Supervisor');
    t.equal(post['o:slug'], 'hello-world');
    t.equal(post['o:published_at'], null);
    t.equal(post['o:created_at'], NOW_TEXT);
    const again = json<Post>(await send('POST', '/api/blog_posts', 'editor', { title: 'Hello World!' }));
    t.equal(again['o:slug'], 'hello-world-2');
    const read = await send('POST', '/api/blog_posts', 'editor', { title: 'x' });
    t.equal(
      (
        await app.inject({
          url: `/api/blog_posts/${json<Post>(read)['o:id']}?${'key_identity=editor-id&key_credential=editor-secret'}`,
        })
      ).statusCode,
      200,
      'readable right after the write',
    );
  });

  t.test('create: every body field, published without published_at is now, tags created', async (t) => {
    const res = await send('POST', '/api/blog_posts', 'editor', {
      title: 'Full',
      slug: 'full-post',
      excerpt: '<b>ex</b>',
      content: '<p>content</p>',
      status: 'published',
      category_id: 2,
      featured_image_asset_id: 12,
      featured_image_url: 'https://example.org/a.jpg',
      tags: ['Maps', 'Brand New', 'brand new'],
      site_ids: [1, 2],
    });
    t.equal(res.statusCode, 201);
    const post = json<Post>(res);
    t.match(post, {
      'o:slug': 'full-post',
      'o:excerpt': '<b>ex</b>',
      'o:content': '<p>content</p>',
      'o:status': 'published',
      'o:published_at': NOW_TEXT,
      'o:category_id': 2,
      'o:category_name': 'events',
      'o:category_slug': 'events',
      'o:featured_image_asset_id': 12,
      'o:featured_image_url': 'https://example.org/a.jpg',
      'o:site_ids': [1, 2],
    });
    const tags = post['o:tags'] as { id: number; name: string; slug: string }[];
    t.same(
      tags.map((tag) => [tag.name, tag.slug]),
      [
        ['maps', 'maps'],
        ['Brand New', 'brand-new'],
      ],
      'existing tag reused, duplicates merged',
    );
    t.equal(tags[0].id, 1);
    const tagList = await app.inject({ url: '/api/blog_tags' });
    t.ok(
      json<{ 'o:slug': string }[]>(tagList).some((tag) => tag['o:slug'] === 'brand-new'),
      'the new tag exists',
    );
    const scheduled = json<Post>(
      await send('POST', '/api/blog_posts', 'editor', {
        title: 'Later',
        status: 'published',
        published_at: '2030-01-01T10:00:00Z',
      }),
    );
    t.equal(scheduled['o:published_at'], '2030-01-01 10:00:00', 'ISO input is stored as YYYY-MM-DD HH:MM:SS UTC');
    t.equal(
      (await app.inject({ url: `/api/blog_posts/${scheduled['o:id']}` })).statusCode,
      404,
      'scheduled: hidden from anonymous',
    );
  });

  t.test('create: validation errors are 422 with the field, nothing written', async (t) => {
    const before = (await send('POST', '/api/blog_posts', 'editor', { title: 'probe' })).statusCode;
    t.equal(before, 201);
    const tagsBefore = json<unknown[]>(await app.inject({ url: '/api/blog_tags' })).length;
    const cases: [object, string][] = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: 'x', status: 'archived', tags: ['never-created'] }, 'status'],
      [{ title: 'x', category_id: 99, tags: ['never-created'] }, 'category_id'],
      [{ title: 'x', site_ids: [42] }, 'site_ids'],
      [{ title: 'x', published_at: 'yesterday' }, 'published_at'],
      [{ title: 'x', slug: 'hello' }, 'slug'],
      [{ title: 'x', slug: 'not valid!' }, 'slug'],
      [{ title: 'x', tags: [''] }, 'tags'],
      [{ title: { text: 'x' } }, 'title'],
      [{ title: 'x', site_ids: 'one' }, 'site_ids'],
      // A JSON body's types are taken as they are, never converted.
      [{ title: 5 }, 'title'],
      [{ title: ['x'] }, 'title'],
      [{ title: 'x', category_id: '1' }, 'category_id'],
      [{ title: 'x', site_ids: ['1'] }, 'site_ids'],
      [{ title: 'x', tags: 'maps' }, 'tags'],
    ];
    for (const [payload, field] of cases) {
      const res = await send('POST', '/api/blog_posts', 'editor', payload);
      t.equal(res.statusCode, 422, JSON.stringify(payload));
      t.ok(json<{ errors: Record<string, string[]> }>(res).errors[field], `names ${field}`);
    }
    t.equal(
      json<unknown[]>(await app.inject({ url: '/api/blog_tags' })).length,
      tagsBefore,
      'refused creates made no tags',
    );
  });

  t.test('update: only present fields; tags and site_ids replace; publish sets now', async (t) => {
    const patch = await send('PATCH', '/api/blog_posts/2', 'editor', {
      excerpt: 'new excerpt',
      tags: ['fresh'],
      site_ids: [2],
    });
    t.equal(patch.statusCode, 200);
    const post = json<Post>(patch);
    t.equal(post['o:title'], 'Draft idea', 'title untouched');
    t.equal(post['o:excerpt'], 'new excerpt');
    t.same(
      (post['o:tags'] as { name: string }[]).map((tag) => tag.name),
      ['fresh'],
    );
    t.same(post['o:site_ids'], [2]);
    t.equal(post['o:author_id'], 3, 'author unchanged');
    const published = json<Post>(await send('PUT', '/api/blog_posts/2', 'global_admin', { status: 'published' }));
    t.equal(published['o:status'], 'published');
    t.equal(published['o:published_at'], NOW_TEXT);
    t.equal((await app.inject({ url: '/api/blog_posts/2' })).statusCode, 200, 'now public');
    const cleared = json<Post>(await send('PATCH', '/api/blog_posts/2', 'editor', { tags: [], category_id: null }));
    t.same(cleared['o:tags'], []);
    t.equal(cleared['o:category_id'], null);
    const slugAgain = json<Post>(await send('PATCH', '/api/blog_posts/2', 'editor', { slug: '' }));
    t.equal(slugAgain['o:slug'], 'draft-idea', 'an emptied slug is made from the title again (its own slug is free)');
    t.equal(
      (await send('PATCH', '/api/blog_posts/2', 'editor', { slug: 'hello' })).statusCode,
      422,
      'slug of another post',
    );
    t.equal((await send('PATCH', '/api/blog_posts/2', 'editor', { status: 'gone' })).statusCode, 422);
    t.equal((await send('PATCH', '/api/blog_posts/2', 'editor', { title: '' })).statusCode, 422);
  });

  t.test('delete removes the post and its comments', async (t) => {
    const editorKey = auth('editor');
    t.equal(json<unknown[]>(await app.inject({ url: `/api/blog_comments?post_id=5&${editorKey.slice(1)}` })).length, 2);
    const res = await send('DELETE', '/api/blog_posts/5', 'editor');
    t.equal(res.statusCode, 200);
    t.equal(json<Post>(res)['o:title'], 'Lighthouse history', 'answers the deleted post');
    t.equal((await app.inject({ url: `/api/blog_posts/5${editorKey}` })).statusCode, 404);
    t.same(json(await app.inject({ url: `/api/blog_comments?post_id=5&${editorKey.slice(1)}` })), []);
    t.equal((await app.inject({ url: `/api/blog_comments/3${editorKey}` })).statusCode, 404);
    t.equal((await send('DELETE', '/api/blog_posts/5', 'editor')).statusCode, 404, 'twice: 404');
  });
});

t.test(
  'the list serves each post as its own GET does, and follows changes to the post, its category and its tags',
  async (t) => {
    const { app } = await buildBlogApp(t);
    const editor = auth('editor', '&');
    const listed = async (id: number) =>
      json<Post[]>(await app.inject({ url: `/api/blog_posts?per_page=100${editor}` })).find((p) => p['o:id'] === id);
    const single = async (id: number) =>
      json<Post>(await app.inject({ url: `/api/blog_posts/${id}${auth('editor')}` }));

    t.same(await listed(1), await single(1), 'read twice: the second list comes from the cache and still matches');
    t.same(await listed(1), await single(1));
    const renamed = await app.inject({
      method: 'PATCH',
      url: `/api/blog_categories/1${auth('editor')}`,
      payload: { name: 'Updates', slug: 'updates' },
    });
    t.equal(renamed.statusCode, 200);
    t.match(
      await listed(1),
      { 'o:category_name': 'Updates', 'o:category_slug': 'updates' },
      'a renamed category shows in the list',
    );
    const edited = await app.inject({
      method: 'PATCH',
      url: `/api/blog_posts/1${auth('editor')}`,
      payload: { title: 'Hello again', tags: ['boats'] },
    });
    t.equal(edited.statusCode, 200);
    t.match(
      await listed(1),
      { 'o:title': 'Hello again', 'o:tags': [{ name: 'boats', slug: 'boats' }] },
      'an edited post shows in the list',
    );
    t.same(await listed(1), await single(1));
  },
);

t.test(
  'a list answered before follows the clock: a scheduled post shows once its time has come, with no write between',
  async (t) => {
    const { app, runtime } = await buildBlogApp(t);
    const publicIds = async () => ids((await app.inject({ url: '/api/blog_posts' })).body);
    t.same(await publicIds(), PUBLIC_POSTS);
    t.same(await publicIds(), PUBLIC_POSTS, 'asked again');
    (runtime.clock as FixedClock).set(new Date('2026-12-01T09:00:00Z'));
    t.same(await publicIds(), [4, ...PUBLIC_POSTS], 'post 4 is published at 2026-12-01 09:00:00');
  },
);

t.test('a list answered before follows a write by another runtime on the same DATA_DIR', async (t) => {
  const { app, config } = await buildBlogApp(t);
  const other = await createRuntime(config, {
    modules: [usersModule, platformModule, blogModule],
    clock: new FixedClock(NOW),
  });
  const otherApp = await buildApp(other);
  t.teardown(async () => {
    await otherApp.close();
    await other.close();
  });
  const total = async () => (await app.inject({ url: '/api/blog_posts' })).headers['platform-total-results'];
  t.equal(await total(), String(PUBLIC_POSTS.length));
  t.equal(await total(), String(PUBLIC_POSTS.length), 'asked again');
  const created = await otherApp.inject({
    method: 'POST',
    url: `/api/blog_posts${auth('editor')}`,
    payload: { title: 'From the other runtime', status: 'published' },
  });
  t.equal(created.statusCode, 201);
  // The other runtime commits its read models within its commit interval.
  const deadline = Date.now() + 10_000;
  while ((await total()) === String(PUBLIC_POSTS.length) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(await total(), String(PUBLIC_POSTS.length + 1), 'the post the other runtime published is counted');
});
