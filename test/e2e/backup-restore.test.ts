import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROLE_USERS } from '../helper.js';
import { runCli, startServer } from './process.js';

// Four child processes each compile the app with tsx: on a busy machine that is slow, never stuck.
t.setTimeout(600_000);

const BASE_URL = 'http://backup-e2e.test';
const ADMIN_KEY = 'key_identity=global_admin-id&key_credential=global_admin-secret';

const fixture = {
  users: ROLE_USERS.slice(0, 1),
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  item_sets: [{ id: 10, title: 'Maps', site_ids: [1] }],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      description: 'old map',
      item_set_ids: [10],
      site_ids: [1],
      media: [{ id: 1000, title: 'Scan', text: 'transcription' }],
    },
    { id: 101, title: 'Private letter', is_public: false },
  ],
  site_pages: [
    { id: 5, site_id: 1, slug: 'about', title: 'About', blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }] },
  ],
};

interface Server {
  url: string;
  stop(): Promise<void>;
}

/** The real server on a data directory; stopped at teardown at the latest. */
async function serve(
  t: { teardown(fn: () => unknown): void },
  dataDir: string,
  env: Record<string, string> = {},
): Promise<Server & { stdout(): string }> {
  const server = await startServer({ DATA_DIR: dataDir, BASE_URL, ...env }, 120_000);
  const stop = () => server.stop();
  t.teardown(stop);
  return { url: server.baseUrl, stop, stdout: () => server.stdout() };
}

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'global@example.org', password: 'global_admin-pass' }),
  });
  if (res.status !== 204) throw new Error(`login: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0];
}

/** Every GET of the OpenAPI document without path parameters, as the global administrator sees it. */
async function snapshot(url: string): Promise<Record<string, { status: number; total: string | null; body: unknown }>> {
  const cookie = await login(url);
  const doc = (await (await fetch(`${url}/api/docs.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  // /health describes the process (log positions, ports), not the data a restore brings back.
  const paths = Object.entries(doc.paths)
    .filter(([path, ops]) => ops.get && !path.includes('{') && path !== '/health')
    .map(([path]) => path)
    .sort();
  const out: Record<string, { status: number; total: string | null; body: unknown }> = {};
  for (const path of paths) {
    // OAI-PMH takes its own arguments (every public record, with its datestamp); its answer's own time aside.
    const query = path === '/oai-pmh' ? 'verb=ListRecords&metadataPrefix=oai_dc' : `${ADMIN_KEY}&per_page=100`;
    const res = await fetch(`${url}${path}?${query}`, { headers: { cookie } });
    const text = (await res.text()).replace(/<responseDate>[^<]*<\/responseDate>/, '');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: compared as text
    }
    out[path] = { status: res.status, total: res.headers.get('platform-total-results'), body };
  }
  return out;
}

async function api(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}${path.includes('?') ? '&' : '?'}${ADMIN_KEY}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

t.test('import, write, back up, restore into a fresh DATA_DIR, read the same answers back', async (t) => {
  const dir = t.testdir();
  const original = join(dir, 'original');
  const restored = join(dir, 'restored');
  mkdirSync(join(original, 'files', 'originals'), { recursive: true });
  writeFileSync(join(original, 'files', 'originals', 'scan.txt'), 'uploaded bytes');
  const fixtureFile = join(dir, 'fixture.json');
  writeFileSync(fixtureFile, JSON.stringify(fixture));

  const imported = await runCli('import.ts', [fixtureFile], { DATA_DIR: original, BASE_URL });
  t.equal(imported.code, 0, `import: ${imported.stderr}`);

  const first = await serve(t, original);
  t.equal(
    (await api(first.url, 'POST', '/api/items', { 'o:title': 'Written through the API', 'o:site': [{ 'o:id': 1 }] }))
      .status,
    201,
  );
  t.equal((await api(first.url, 'PATCH', '/api/items/100', { 'o:description': 'changed' })).status, 200);
  t.equal(
    (await api(first.url, 'POST', '/api/media', { 'o:item': { 'o:id': 100 }, 'o:title': 'Second scan' })).status,
    201,
  );
  t.equal((await api(first.url, 'DELETE', '/api/site_pages/5')).status, 200);
  t.equal(
    (
      await api(first.url, 'POST', '/api/site_pages', {
        'o:site': { 'o:id': 1 },
        'o:slug': 'visit',
        'o:title': 'Visit',
      })
    ).status,
    201,
  );
  const before = await snapshot(first.url);
  t.ok(
    Object.keys(before).includes('/api/items') && Object.keys(before).includes('/api/backups'),
    'the snapshot covers the listable GETs',
  );
  t.equal((before['/api/items'].body as unknown[]).length, 3);

  // An older backup: its record is in the next archive's log, its archive is not.
  const older = await api(first.url, 'POST', '/api/backups');
  t.equal(older.status, 201);
  const backup = await api(first.url, 'POST', '/api/backups');
  t.equal(backup.status, 201);
  t.equal(backup.body['o:status'], 'complete');
  const archive = backup.body['o:path'] as string;
  t.ok(existsSync(archive) && existsSync(`${archive}.sha256`));
  // Writes after the backup are not in it.
  t.equal((await api(first.url, 'POST', '/api/sites', { 'o:slug': 'later', 'o:title': 'Later' })).status, 201);
  await first.stop();

  const restore = await runCli('restore.ts', [archive], { DATA_DIR: restored, BASE_URL });
  t.equal(restore.code, 0, `restore: ${restore.stderr}`);
  t.match(restore.stdout, /Restored \d+ events and 1 files/);
  t.match(restore.stdout, /1 backup record\(s\) left the list: their archives are not part of the restored data/);
  t.match(restore.stderr, /restore \[/, 'a progress bar');
  t.equal(readFileSync(join(restored, 'files', 'originals', 'scan.txt'), 'utf8'), 'uploaded bytes');

  t.match(
    restore.stdout,
    /Put back [1-9]\d* read-side file\(s\) with their checkpoints/,
    'the read models came back with the log',
  );

  const second = await serve(t, restored, { LOG_LEVEL: 'info' });
  const ready = second
    .stdout()
    .split('\n')
    .find((line) => line.includes('Read models ready'));
  t.ok(ready, 'the start says how it found the read models');
  const stats = (
    JSON.parse(ready ?? '{"projections":[]}') as {
      projections: { name: string; resumedFrom: number; firstApplied: number | null }[];
    }
  ).projections;
  t.ok(
    stats.length > 0 && stats.every((s) => s.resumedFrom > 0),
    'every projection resumed from its restored checkpoint: no rebuild',
  );
  t.ok(
    stats.every((s) => s.firstApplied === null || s.firstApplied > s.resumedFrom),
    'and applied nothing at or below it',
  );
  const after = await snapshot(second.url);
  t.same(Object.keys(after), Object.keys(before), 'the same GETs');
  for (const path of Object.keys(before)) t.same(after[path], before[path], `GET ${path} answers the same`);
  t.equal(
    (await api(second.url, 'GET', `/api/backups/${older.body['o:id'] as number}`)).status,
    404,
    'the older backup, whose archive was not restored, is not listed',
  );
  const sites = (await api(second.url, 'GET', '/api/sites')).body as unknown as { 'o:slug': string }[];
  t.notOk(
    sites.some((s) => s['o:slug'] === 'later'),
    'the write after the backup is not restored',
  );
  const created = await api(second.url, 'POST', '/api/items', { 'o:title': 'After restore' });
  t.equal(created.status, 201, 'the restored installation takes writes');
  t.equal(created.body['o:id'], 103, 'ids continue where the backup left off');
  await second.stop();

  const again = await runCli('restore.ts', [archive], { DATA_DIR: restored, BASE_URL });
  t.equal(again.code, 1);
  t.match(again.stderr, /Restore refused, nothing was written: The target DATA_DIR .* is not empty/);

  const damaged = join(dir, 'damaged.zip');
  const bytes = readFileSync(archive);
  bytes[Math.floor(bytes.length / 2)] ^= 0xff;
  writeFileSync(damaged, bytes);
  writeFileSync(`${damaged}.sha256`, readFileSync(`${archive}.sha256`));
  const refused = await runCli('restore.ts', [damaged], { DATA_DIR: join(dir, 'never'), BASE_URL });
  t.equal(refused.code, 1);
  t.match(
    refused.stderr,
    /Restore refused, nothing was written: The archive does not match its \.sha256 checksum file/,
  );
  t.notOk(existsSync(join(dir, 'never')));
  const usage = await runCli('restore.ts', [], { DATA_DIR: join(dir, 'never'), BASE_URL });
  t.equal(usage.code, 2);
});
