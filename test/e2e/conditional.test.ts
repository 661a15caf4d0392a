import t from 'tap';
import { importFixtureFile, startServer } from './process.js';

/** Conditional requests over real HTTP, with two server processes on one DATA_DIR (issue 38). A start may be slow on a loaded machine. */
const fixture = {
  users: [
    {
      id: 1,
      email: 'admin@example.org',
      name: 'Ada',
      role: 'global_admin',
      password: 's3cret-pass',
      api_keys: [{ identity: 'ID', credential: 'CRED', label: 'ci' }],
    },
  ],
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  blog: {
    posts: [
      {
        id: 1,
        title: 'Hello',
        slug: 'hello',
        content: '<p>Hi</p>',
        status: 'published',
        author_id: 1,
        published_at: '2026-01-02 03:04:05',
      },
    ],
  },
};
const KEY = 'key_identity=ID&key_credential=CRED';

t.test(
  "a list is 304 until another process's write changes it; a stale If-Match is refused across processes",
  async (t) => {
    const dataDir = t.testdir();
    const imported = await importFixtureFile(dataDir, fixture, 'conditional');
    t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
    const [a, b] = await Promise.all([
      startServer({ DATA_DIR: dataDir }, 180_000),
      startServer({ DATA_DIR: dataDir }, 180_000),
    ]);
    t.teardown(() => Promise.all([a, b].map((server) => server.stop('SIGKILL'))));

    const first = await fetch(`${a.baseUrl}/api/blog_posts`);
    await first.text();
    const listTag = first.headers.get('etag') as string;
    t.match(listTag, /^W\/"/);
    t.equal(first.headers.get('cache-control'), 'public, max-age=0, must-revalidate');
    const unchanged = await fetch(`${a.baseUrl}/api/blog_posts`, { headers: { 'if-none-match': listTag } });
    t.equal(unchanged.status, 304);
    t.equal(await unchanged.text(), '', 'no body');

    const postTag = (await fetch(`${a.baseUrl}/api/blog_posts/1?${KEY}`)).headers.get('etag') as string;
    const patch = (server: typeof a, tag: string, title: string) =>
      fetch(`${server.baseUrl}/api/blog_posts/1?${KEY}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'if-match': tag },
        body: JSON.stringify({ title }),
      });
    const won = await patch(b, postTag, 'Changed by B');
    t.equal(won.status, 200);
    const lost = await patch(a, postTag, 'Lost by A');
    t.equal(lost.status, 412, "the other process's write made A's tag stale");

    // A's read models follow the log within its commit interval.
    const deadline = Date.now() + 10_000;
    let status = 304;
    while (status === 304 && Date.now() < deadline) {
      const res = await fetch(`${a.baseUrl}/api/blog_posts`, { headers: { 'if-none-match': listTag } });
      status = res.status;
      await res.text();
      if (status === 304) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.equal(status, 200, 'the list B changed is answered whole');
    const post = (await (await fetch(`${a.baseUrl}/api/blog_posts/1`)).json()) as Record<string, unknown>;
    t.equal(post['o:title'], 'Changed by B');
  },
);
