import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServer } from './process.js';

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
  item_sets: [{ id: 10, title: 'Maps', site_ids: [1] }],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      description: 'text',
      item_set_ids: [10],
      site_ids: [1],
      is_public: true,
      media: [{ id: 1000, title: 'Scan', text: 'transcription text', is_public: true }],
    },
  ],
  site_pages: [
    {
      id: 5,
      site_id: 1,
      slug: 'about',
      title: 'About',
      is_public: true,
      layout: null,
      layout_data: {},
      blocks: [{ layout: 'html', data: { html: '<p>...</p>' } }],
    },
  ],
};

t.test('import, start, write, restart, read the same data back', async (t) => {
  const dataDir = t.testdir();
  const file = join(dataDir, '..', `fixture-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(fixture));
  const imported = await runCli('import.ts', [file], { DATA_DIR: dataDir });
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);

  let server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const item = await fetch(`${server.baseUrl}/api/items/100`);
  t.equal(item.status, 200);
  t.equal(((await item.json()) as Record<string, unknown>)['o:title'], 'Map of Lisbon');
  const created = await fetch(`${server.baseUrl}/api/items?key_identity=ID&key_credential=CRED`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ 'o:title': 'Written over HTTP' }),
  });
  t.equal(created.status, 201);
  const newId = ((await created.json()) as { 'o:id': number })['o:id'];
  const login = await fetch(`${server.baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.org', password: 's3cret-pass' }),
  });
  t.equal(login.status, 204);
  const cookie = /^(sid=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? '';
  t.ok(cookie, 'a session cookie');
  await server.stop();

  server = await startServer({ DATA_DIR: dataDir });
  const again = await fetch(`${server.baseUrl}/api/items/${newId}`);
  t.equal(again.status, 200, 'a write made before the restart is there after it');
  t.equal(((await again.json()) as Record<string, unknown>)['o:title'], 'Written over HTTP');
  const list = await fetch(`${server.baseUrl}/api/items`);
  t.equal(list.headers.get('platform-total-results'), '2');
  const page = await fetch(`${server.baseUrl}/api/site_pages/5`);
  t.equal(((await page.json()) as Record<string, unknown>)['o:slug'], 'about');
  const next = await fetch(`${server.baseUrl}/api/items?key_identity=ID&key_credential=CRED`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ 'o:title': 'After restart' }),
  });
  t.equal(((await next.json()) as { 'o:id': number })['o:id'], newId + 1, 'the id sequence survives restarts');
  const withSession = await fetch(`${server.baseUrl}/api/items`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ 'o:title': 'Written with the session from before the restart' }),
  });
  t.equal(withSession.status, 201, 'the login made before the restart still holds');
});

t.test('the import CLI refuses bad input whole, naming the JSON path', async (t) => {
  const dataDir = t.testdir();
  const bad = {
    users: fixture.users,
    sites: [{ id: 1, slug: 'main', title: 'Main site' }],
    items: [
      { id: 100, title: 'ok' },
      { id: 101, title: 42 },
    ],
  };
  const file = join(dataDir, '..', `bad-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(bad));
  const refused = await runCli('import.ts', [file], { DATA_DIR: dataDir });
  t.not(refused.code, 0, 'exits non-zero');
  t.match(refused.stderr, /\$\.items\[1\]\.title/);

  writeFileSync(file, JSON.stringify({ sites: [{ id: 1, slug: 'main', title: 'Main' }] }));
  t.equal(
    (await runCli('import.ts', [file], { DATA_DIR: dataDir })).code,
    0,
    'nothing was imported by the refused run',
  );
  const twice = await runCli('import.ts', [file], { DATA_DIR: dataDir });
  t.not(twice.code, 0, 'importing an id that exists is refused');
  t.match(twice.stderr, /\$\.sites\[0\]\.id/);

  writeFileSync(file, '{not json');
  t.not((await runCli('import.ts', [file], { DATA_DIR: dataDir })).code, 0);
});

t.test('rebuild replays the log with a progress bar', async (t) => {
  const dataDir = t.testdir();
  const file = join(dataDir, '..', `fx-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ sites: fixture.sites }));
  t.equal((await runCli('import.ts', [file], { DATA_DIR: dataDir })).code, 0);
  const rebuilt = await runCli('rebuild.ts', [], { DATA_DIR: dataDir });
  t.equal(rebuilt.code, 0, rebuilt.stderr);
  t.match(rebuilt.stdout, /Rebuilt read models from \d+ events/);
  t.match(rebuilt.stderr, /rebuild/);
});
