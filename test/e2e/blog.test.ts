import t from 'tap';
import { importFixtureFile, startServer } from './process.js';

const fixture = {
  users: [
    {
      id: 1,
      email: 'editor@example.org',
      name: 'Ed',
      role: 'editor',
      password: 'editor-pass',
      api_keys: [{ identity: 'ED', credential: 'ED-SECRET' }],
    },
    {
      id: 2,
      email: 'author@example.org',
      name: 'Au',
      role: 'author',
      password: 'author-pass',
      api_keys: [{ identity: 'AU', credential: 'AU-SECRET' }],
    },
  ],
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  blog: {
    settings: { comments_enabled: true },
    categories: [{ id: 1, name: 'News', slug: 'news', description: '' }],
    posts: [
      {
        id: 1,
        title: 'Hello',
        slug: 'hello',
        excerpt: '',
        content: '<p>Hi</p>',
        status: 'published',
        author_id: 1,
        category_id: 1,
        tags: ['maps'],
        site_ids: [1],
        published_at: '2020-01-02 03:04:05',
      },
      {
        id: 2,
        title: 'Someday',
        slug: 'someday',
        excerpt: '',
        content: '',
        status: 'published',
        author_id: 1,
        category_id: null,
        tags: [],
        site_ids: [1],
        published_at: '2099-01-01 00:00:00',
      },
      {
        id: 3,
        title: 'Draft',
        slug: 'draft',
        excerpt: '',
        content: '',
        status: 'draft',
        author_id: 2,
        category_id: null,
        tags: [],
        site_ids: [],
        published_at: null,
      },
    ],
    comments: [
      { id: 1, post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice', status: 'approved' },
    ],
  },
};

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

t.test('the blog through the real server: import, read, write, comment, moderate', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'blog-fixture');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);

  const server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const base = server.baseUrl;
  const editorKey = 'key_identity=ED&key_credential=ED-SECRET';

  const list = await call(`${base}/api/blog_posts`);
  t.equal(list.status, 200);
  t.same(
    (list.body as { 'o:id': number }[]).map((p) => p['o:id']),
    [1],
    'anonymous: the published, not scheduled',
  );
  t.equal(list.headers.get('platform-total-results'), '1');
  const all = await call(`${base}/api/blog_posts?${editorKey}`);
  t.equal((all.body as unknown[]).length, 3, 'editor sees all');
  const legacy = await call(`${base}/api/blog/posts`);
  t.match(legacy.body, { total: 2, page: 1, per_page: 10, total_pages: 1 }, 'legacy lists the scheduled post too');

  const created = await call(`${base}/api/blog_posts?${editorKey}`, {
    method: 'POST',
    body: JSON.stringify({ title: 'Over HTTP', content: '<p>new</p>', status: 'published', tags: ['maps', 'fresh'] }),
  });
  t.equal(created.status, 201);
  const newId = (created.body as { 'o:id': number })['o:id'];
  t.equal(newId, 4, 'ids continue after the imported ones');
  t.equal((await call(`${base}/api/blog_posts/${newId}`)).status, 200, 'published now: public at once');
  t.equal(
    (
      await call(`${base}/api/blog_posts?key_identity=AU&key_credential=AU-SECRET`, {
        method: 'POST',
        body: '{"title":"x"}',
      })
    ).status,
    403,
  );

  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'author@example.org', password: 'author-pass' }),
  });
  t.equal(login.status, 204);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const legacyPost = await call(`${base}/api/blog/posts`, {
    method: 'POST',
    headers: { cookie },
    body: JSON.stringify({ title: 'By session', content: 'c', tags: 'a,b' }),
  });
  t.equal(legacyPost.status, 201);
  t.match(legacyPost.body, { title: 'By session', status: 'draft', author_id: 2, tags: ['a', 'b'] });
  t.equal(
    (await call(`${base}/api/blog/posts`, { method: 'POST', body: JSON.stringify({ title: 'x', content: 'y' }) }))
      .status,
    401,
  );

  const comment = await call(`${base}/api/blog/posts/1/comments`, {
    method: 'POST',
    body: JSON.stringify({ author_name: 'Vi', author_email: 'vi@example.org', body: '<b>hi</b>' }),
  });
  t.equal(comment.status, 201);
  const commentId = (comment.body as { id: number }).id;
  t.match(comment.body, { status: 'pending' });
  t.equal((await call(`${base}/api/blog_comments/${commentId}`)).status, 404, 'pending: hidden');
  t.equal((await call(`${base}/api/blog/posts/1/comments`, { method: 'GET' })).status, 405);
  const moderated = await call(`${base}/api/blog_comments/${commentId}?${editorKey}`, {
    method: 'PATCH',
    body: JSON.stringify({ status: 'approved' }),
  });
  t.equal(moderated.status, 200);
  const visible = await call(`${base}/api/blog_comments/${commentId}`);
  t.equal(visible.status, 200);
  t.equal((visible.body as Record<string, unknown>)['o:body'], '&lt;b&gt;hi&lt;/b&gt;');
  t.notOk('o:author_email' in (visible.body as object));

  const tags = await call(`${base}/api/blog_tags`);
  t.same(
    (tags.body as { 'o:slug': string }[]).map((tag) => tag['o:slug']),
    ['a', 'b', 'fresh', 'maps'],
  );
});
