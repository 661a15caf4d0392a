import t, { type Test } from 'tap';
import { ROLE_USERS } from '../helper.js';
import { seededRandom } from '../seeded-random.js';
import { importFixtureFile, startServer, type ServerProcess } from './process.js';
import { storedFileNames } from './topology.js';
import { rawRequest, type RawAnswer } from './raw-http.js';

// One server process takes every request: a crash only shows in a real process (an uncaught
// exception or an 'error' event nobody listens to exits it), never through app.inject.
t.setTimeout(240_000);

const BOUNDARY = 'XyZ';
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** A small whole form: a text field, then the file part the route reads. */
function form(fileField: string): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="o:name"\r\n\r\nT\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fileField}"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nabc\r\n` +
      `--${BOUNDARY}--\r\n`,
  );
}

/** Whether a prefix of the form already holds its closing boundary, so it is a whole form. */
function isWhole(prefix: Buffer): boolean {
  return prefix.includes(`--${BOUNDARY}--`);
}

async function login(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 204) throw new Error(`login failed: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0];
}

/** The process is still there and serving: it has not exited and it answers a read. */
async function stillServing(t: Test, server: ServerProcess, label: string): Promise<boolean> {
  const alive = server.child.exitCode === null && server.child.signalCode === null;
  const answered = alive
    ? await fetch(`${server.baseUrl}/api/sites`).then(
        (r) => r.status,
        () => null,
      )
    : null;
  t.ok(alive && answered === 200, `the server still serves after ${label}`, {
    exitCode: server.child.exitCode,
    answered,
  });
  return alive && answered === 200;
}

type Surface = 'native' | 'plain' | 'status-envelope';

/** A 4xx whose body has the surface's error shape (CONTRACT.md section 3, the seeds). */
function isClientError(answer: RawAnswer, surface: Surface): boolean {
  if (answer.status === null || answer.status < 400 || answer.status >= 500) return false;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return false;
  }
  const fields = body as { errors?: unknown; error?: unknown; status?: unknown; message?: unknown };
  switch (surface) {
    case 'native':
      return typeof fields.errors === 'object' && fields.errors !== null;
    case 'plain':
      return typeof fields.error === 'string';
    case 'status-envelope':
      return fields.status === 'error' && typeof fields.message === 'string';
  }
}

t.test('no truncated or broken body stops the server', async (t) => {
  const dataDir = t.testdir();
  const fixture = {
    users: ROLE_USERS,
    sites: [{ id: 1, slug: 'main', title: 'Main site' }],
    site_pages: [
      { id: 5, site_id: 1, slug: 'about', title: 'About', blocks: [{ layout: 'html', data: { html: '<p>One</p>' } }] },
    ],
  };
  const imported = await importFixtureFile(dataDir, fixture, 'truncated-bodies');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const server = await startServer({ DATA_DIR: dataDir, MAX_UPLOAD_BYTES: String(64 * 1024) });
  t.teardown(() => server.stop('SIGKILL'));
  const base = server.baseUrl;
  const port = Number(new URL(base).port);
  const editor = ROLE_USERS.find((u) => u.role === 'editor');
  if (!editor) throw new Error('no editor');
  const cookie = await login(base, editor.email, editor.password);
  const storedFiles = async () => (await storedFileNames(dataDir, 'assets')).length;

  const created = await rawRequest(port, {
    method: 'POST',
    path: '/api/asset-picker/assets',
    headers: { ...MULTIPART, cookie },
    body: form('file[0]'),
    contentLength: form('file[0]').length,
  });
  t.equal(created.status, 201, 'a whole form is taken');
  const assetId = (JSON.parse(created.body) as { asset: { id: number } }).asset.id;
  let wholeUploads = 0;

  const routes = [
    { method: 'POST', path: '/api/asset-picker/assets', body: form('file[0]') },
    { method: 'PUT', path: `/api/asset-picker/assets/${assetId}/replace`, body: form('file') },
  ];

  for (const route of routes) {
    await t.test(`${route.method} ${route.path}: the body cut at every byte`, async (t) => {
      const wrong: string[] = [];
      for (let offset = 0; offset < route.body.length; offset++) {
        const prefix = route.body.subarray(0, offset);
        // The connection ends before the announced body does: an aborted upload.
        await rawRequest(port, {
          method: route.method,
          path: route.path,
          headers: { ...MULTIPART, cookie },
          body: prefix,
          contentLength: route.body.length,
        });
        // The body is all there, but its multipart framing stops short.
        const cut = await rawRequest(port, {
          method: route.method,
          path: route.path,
          headers: { ...MULTIPART, cookie },
          body: prefix,
          contentLength: prefix.length,
        });
        if (isWhole(prefix) && route.method === 'POST' && cut.status === 201) wholeUploads++;
        if (!isWhole(prefix) && !isClientError(cut, 'status-envelope'))
          wrong.push(`${offset}: ${cut.status} ${cut.body}`);
        if (server.child.exitCode !== null) break;
      }
      t.same(wrong, [], 'every cut form is a 4xx');
      await stillServing(t, server, 'every cut');
    });
  }
  await t.test(
    'broken forms: a part with no name, no boundary, an oversized file, a connection lost mid-file',
    async (t) => {
      const big = Buffer.alloc(200 * 1024, 0x61);
      const part = (disposition: string, content: Buffer | string) =>
        Buffer.concat([
          Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n`),
          Buffer.from(content),
          Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
        ]);
      const cases = [
        { label: 'a file part with no name', headers: MULTIPART, body: part('form-data; filename="a.txt"', 'abc') },
        {
          label: 'a part with no disposition at all',
          headers: MULTIPART,
          body: Buffer.from(`--${BOUNDARY}\r\n\r\nabc\r\n--${BOUNDARY}--\r\n`),
        },
        {
          label: 'a multipart type with no boundary',
          headers: { 'content-type': 'multipart/form-data' },
          body: part('form-data; name="file[0]"; filename="a.txt"', 'abc'),
        },
        {
          label: 'an oversized file',
          headers: MULTIPART,
          body: part('form-data; name="file[0]"; filename="a.txt"', big),
        },
      ];
      for (const { label, headers, body } of cases) {
        for (const path of ['/api/asset-picker/assets', `/api/asset-picker/assets/${assetId}/replace`]) {
          const method = path.endsWith('/replace') ? 'PUT' : 'POST';
          const answer = await rawRequest(port, {
            method,
            path,
            headers: { ...headers, cookie },
            body,
            contentLength: body.length,
          });
          t.ok(isClientError(answer, 'status-envelope'), `${label}, ${method}: a 4xx in the asset library's shape`, {
            status: answer.status,
            body: answer.body,
          });
          // The same bytes, the connection lost half-way (mid-file for the oversized one).
          await rawRequest(port, {
            method,
            path,
            headers: { ...headers, cookie },
            body: body.subarray(0, body.length >> 1),
            contentLength: body.length,
          });
        }
      }
      await stillServing(t, server, 'the broken forms');
    },
  );

  await t.test('JSON bodies of every surface cut at random offsets (seeded)', async (t) => {
    const editorKey = 'key_identity=editor-id&key_credential=editor-secret';
    const adminKey = 'key_identity=global_admin-id&key_credential=global_admin-secret';
    const versions = await fetch(`${base}/api/page-versioning/5/versions`, { headers: { cookie } });
    const versionId = ((await versions.json()) as { data: { versions: { id: number }[] } }).data.versions[0].id;
    const json = { 'content-type': 'application/json' };
    const surfaces: {
      label: string;
      surface: Surface;
      method: string;
      path: string;
      headers: Record<string, string>;
      body: object;
    }[] = [
      {
        label: 'platform (legacy Omeka S)',
        surface: 'native',
        method: 'POST',
        path: `/api/items?${editorKey}`,
        headers: json,
        body: { 'o:title': 'Map of Lisbon', 'o:is_public': true, 'o:site': [{ 'o:id': 1 }] },
      },
      {
        label: 'native blog',
        surface: 'native',
        method: 'POST',
        path: `/api/blog_categories?${editorKey}`,
        headers: json,
        body: { name: 'News', description: 'What is new' },
      },
      {
        label: 'legacy blog',
        surface: 'plain',
        method: 'POST',
        path: '/api/blog/posts',
        headers: { ...json, cookie },
        body: { title: 'Hello', content: '<p>Hi</p>', status: 'draft' },
      },
      {
        label: 'asset library',
        surface: 'status-envelope',
        method: 'POST',
        path: '/api/asset-picker/folders',
        headers: { ...json, cookie },
        body: { title: 'Maps', parent_id: null },
      },
      {
        label: 'page versioning',
        surface: 'status-envelope',
        method: 'POST',
        path: `/api/page-versioning/version/${versionId}/revert`,
        headers: { ...json, cookie },
        body: { summary: 'Back to the first' },
      },
      // Never the whole body here: a backup archives everything. An empty one means "everything" too, so cuts start at 1.
      {
        label: 'backups',
        surface: 'native',
        method: 'POST',
        path: `/api/backups?${adminKey}`,
        headers: json,
        body: {
          include_db: false,
          include_files: false,
          include_themes: false,
          include_modules: false,
          include_api: false,
        },
      },
    ];
    const seed = 36;
    const random = seededRandom(seed);
    for (const { label, surface, method, path, headers, body } of surfaces) {
      const bytes = Buffer.from(JSON.stringify(body));
      const wrong: string[] = [];
      for (let i = 0; i < 12; i++) {
        const offset = 1 + Math.floor(random() * (bytes.length - 1));
        const prefix = bytes.subarray(0, offset);
        await rawRequest(port, { method, path, headers, body: prefix, contentLength: bytes.length });
        const cut = await rawRequest(port, { method, path, headers, body: prefix, contentLength: prefix.length });
        if (!isClientError(cut, surface)) wrong.push(`${offset}: ${cut.status} ${cut.body}`);
      }
      t.same(wrong, [], `${label}: every cut body is a 4xx in its shape (seed ${seed})`);
      if (label === 'backups') continue;
      // So the cuts were refused for being cut, not for the caller.
      const whole = await rawRequest(port, { method, path, headers, body: bytes, contentLength: bytes.length });
      t.ok(whole.status !== null && whole.status < 300, `${label}: the whole body is taken`, {
        status: whole.status,
        body: whole.body,
      });
    }
    // Form bodies: any prefix of one is a form, so only the lost connection is tried.
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const forms = [
      {
        path: '/login',
        headers: form,
        body: Buffer.from(`email=${encodeURIComponent(editor.email)}&password=${editor.password}`),
      },
      {
        path: `/api/page-versioning/version/${versionId}/revert`,
        headers: { ...form, cookie },
        body: Buffer.from('summary=Back+to+the+first+one'),
      },
    ];
    for (const { path, headers, body } of forms) {
      for (let i = 0; i < 6; i++) {
        const offset = Math.floor(random() * body.length);
        await rawRequest(port, {
          method: 'POST',
          path,
          headers,
          body: body.subarray(0, offset),
          contentLength: body.length,
        });
      }
    }
    await stillServing(t, server, 'the cut JSON and form bodies');
  });

  const list = await fetch(`${base}/api/asset-picker/assets?per_page=100`, { headers: { cookie } });
  t.equal(((await list.json()) as { total: number }).total, 1 + wholeUploads, 'no cut form recorded an asset');
  t.equal(await storedFiles(), 1 + wholeUploads, 'nor stored a file');
  // A lost connection's upload is discarded after the socket closed: give it a moment.
  const partials = () => storedFileNames(dataDir, 'tmp');
  for (let waited = 0; (await partials()).length > 0 && waited < 5000; waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  t.same(await partials(), [], 'nor left a partial upload');
});
