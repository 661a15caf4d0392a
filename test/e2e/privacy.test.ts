import t from 'tap';
import { request as httpRequest } from 'node:http';
import { importFixtureFile, startServer } from './process.js';

/**
 * Issue 22 through the real server and Node's own HTTP client: a list's Link header stays
 * readable whatever the query string holds, a body past the JSON limits is refused, and an
 * upload cut off inside its file is answered rather than left waiting.
 */

const fixture = {
  users: [
    {
      id: 1,
      email: 'admin@example.org',
      name: 'Ada Admin',
      role: 'global_admin',
      password: 'admin-pass',
      api_keys: [{ identity: 'admin-id', credential: 'admin-secret', label: 'e2e' }],
    },
  ],
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  items: [
    {
      id: 100,
      title: 'Map',
      media: [
        { id: 1000, title: 'Scan' },
        { id: 1001, title: 'Notes', is_public: false },
      ],
    },
  ],
};

t.setTimeout(300_000);

/** A request with node:http, which refuses answers whose headers pass its 16 KB limit. */
function get(
  url: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

t.test('privacy and limits through the real server', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'privacy-fixture');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const base = server.baseUrl;

  const list = await get(
    `${base}/api/items?key_identity=admin-id&key_credential=admin-secret&unknown=${'x'.repeat(12_000)}`,
  );
  t.equal(list.status, 200, "Node's client reads the answer");
  t.notMatch(
    String(list.headers.link),
    /admin-secret|admin-id|unknown/,
    'the Link header holds no credential and no unknown parameter',
  );

  const longFilter = await get(`${base}/api/blog_posts?search=${'y'.repeat(12_000)}`);
  t.equal(longFilter.status, 200, "Node's client reads a list with a 12 KB filter too");
  t.equal(longFilter.headers.link, undefined, 'which has no Link header');

  const anonymous = await get(`${base}/api/items/100`);
  t.same(
    (JSON.parse(anonymous.body) as { 'o:media': { 'o:id': number }[] })['o:media'].map((m) => m['o:id']),
    [1000],
    'an anonymous read does not list the private media',
  );

  const deep = await fetch(`${base}/api/items?key_identity=admin-id&key_credential=admin-secret`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"o:title":"Deep","extra":${'['.repeat(4200)}${']'.repeat(4200)}}`,
  });
  t.equal(deep.status, 422);
  t.same(await deep.json(), { errors: { body: ['The request body is nested more than 64 levels deep.'] } });

  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.org', password: 'admin-pass' }),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const cut = await fetch(`${base}/api/asset-picker/assets`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'multipart/form-data; boundary=cut' },
    body: '--cut\r\nContent-Disposition: form-data; name="file[0]"; filename="a.png"\r\n\r\nPNG\r\n',
    signal: AbortSignal.timeout(10_000),
  });
  t.equal(cut.status, 400, 'an upload cut off inside its file is answered');
  t.same(await cut.json(), {
    status: 'error',
    message: 'The multipart body ended inside a file, before its closing boundary.',
  });
});
