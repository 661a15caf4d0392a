import t from 'tap';
import { importFixtureFile, startServer } from './process.js';

/**
 * Two real server processes on one DATA_DIR (issue 22): each has its own connection to the log
 * and its own read models, so only the event store can give a unique slug to one of them.
 */
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
};
const KEY = 'key_identity=ID&key_credential=CRED';
const EACH = 10;

t.test('two servers on one DATA_DIR creating the same slug at once: exactly one wins', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'two-servers');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const servers = await Promise.all([startServer({ DATA_DIR: dataDir }), startServer({ DATA_DIR: dataDir })]);
  t.teardown(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));

  const fromBoth = (path: string, body: (i: number) => object) =>
    Promise.all(
      servers.flatMap((server, s) =>
        Array.from({ length: EACH }, (_, i) =>
          fetch(`${server.baseUrl}${path}?${KEY}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body(s * EACH + i)),
          }).then((res) => res.status),
        ),
      ),
    );
  for (const [label, path, body] of [
    ['sites', '/api/sites', (i: number) => ({ 'o:slug': 'shared', 'o:title': `Site ${i}` })],
    [
      'site pages',
      '/api/site_pages',
      (i: number) => ({ 'o:site': { 'o:id': 1 }, 'o:slug': 'shared', 'o:title': `Page ${i}` }),
    ],
    ['blog posts', '/api/blog_posts', (i: number) => ({ title: `Post ${i}`, slug: 'shared' })],
  ] as const) {
    const codes = await fromBoth(path, body);
    t.equal(codes.filter((c) => c === 201).length, 1, `${label}: one 201 (${codes.join(' ')})`);
    t.equal(codes.filter((c) => c === 422).length, 2 * EACH - 1, `${label}: the others 422`);
  }
});

t.test('two servers on one DATA_DIR: each finds by search the posts either wrote', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'two-servers');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const servers = await Promise.all([startServer({ DATA_DIR: dataDir }), startServer({ DATA_DIR: dataDir })]);
  t.teardown(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));
  const create = async (server: (typeof servers)[number], title: string): Promise<number> => {
    const res = await fetch(`${server.baseUrl}/api/blog_posts?${KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title, excerpt: 'Harbour' }),
    });
    t.equal(res.status, 201);
    return ((await res.json()) as { 'o:id': number })['o:id'];
  };
  const search = async (server: (typeof servers)[number], text: string): Promise<number[]> => {
    // The other server's read models follow the log: a create is in them once its projections ran.
    const res = await fetch(`${server.baseUrl}/api/blog_posts?search=${encodeURIComponent(text)}&per_page=100&${KEY}`);
    return ((await res.json()) as { 'o:id': number }[]).map((post) => post['o:id']).sort((a, b) => a - b);
  };
  const ids: number[] = [];
  for (let i = 0; i < 10; i++) ids.push(await create(servers[i % 2], `Quay ${i}`));
  for (const [n, server] of servers.entries()) {
    const deadline = Date.now() + 10_000;
    let found = await search(server, 'harbour');
    while (found.length < ids.length && Date.now() < deadline) found = await search(server, 'harbour');
    t.same(
      found,
      [...ids].sort((a, b) => a - b),
      `server ${n + 1} finds every post, whichever server wrote it`,
    );
    t.same(await search(server, 'quay 7'), [ids[7]]);
  }
});
