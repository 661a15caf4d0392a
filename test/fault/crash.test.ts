import t from 'tap';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServer } from '../e2e/process.js';

const fixture = {
  users: [
    {
      id: 1,
      email: 'admin@example.org',
      name: 'Ada',
      role: 'global_admin',
      password: 'pw-123456',
      api_keys: [{ identity: 'ID', credential: 'CRED' }],
    },
  ],
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
};

t.test('SIGKILL mid-stream loses no acknowledged write and tears no event', async (t) => {
  const dataDir = t.testdir();
  const file = join(dataDir, '..', `crash-fixture-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(fixture));
  t.equal((await runCli('import.ts', [file], { DATA_DIR: dataDir })).code, 0);

  let server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const acknowledged: number[] = [];
  let failed = 0;
  let killed = false;
  const write = async (n: number) => {
    try {
      const res = await fetch(`${server.baseUrl}/api/items?key_identity=ID&key_credential=CRED`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ 'o:title': `Item ${n}`, 'o:site': [{ 'o:id': 1 }] }),
      });
      if (res.status === 201) {
        acknowledged.push(((await res.json()) as { 'o:id': number })['o:id']);
        // Kill the server once some writes are acknowledged, while the rest are in flight.
        if (acknowledged.length >= 60 && !killed) {
          killed = true;
          server.child.kill('SIGKILL');
        }
      } else failed++;
    } catch {
      failed++;
    }
  };
  // Clients that each send their next write as soon as the last is answered, so writes are in
  // flight whenever the kill comes, however fast the server answers (at most 600 writes).
  let issued = 0;
  const client = async () => {
    while (!killed && issued < 600) await write((issued += 1));
  };
  await Promise.all(Array.from({ length: 60 }, client));
  await server.stop('SIGKILL');
  t.ok(killed, 'the server was killed mid-stream');
  t.ok(failed > 0, `some writes were cut off (${acknowledged.length} acknowledged, ${failed} cut off)`);

  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  const gaps = db
    .prepare(`SELECT stream_id, COUNT(*) AS n, MAX(stream_version) AS v FROM events GROUP BY stream_id HAVING n != v`)
    .all();
  t.same(gaps, [], 'every stream is contiguous: no event half written');
  for (const row of db.prepare('SELECT data, metadata FROM events').all() as { data: string; metadata: string }[]) {
    JSON.parse(row.data);
    JSON.parse(row.metadata);
  }
  const itemStreams = (
    db
      .prepare(
        `SELECT COUNT(DISTINCT stream_id) AS n FROM events WHERE stream_id LIKE 'item-%' AND type = 'ItemCreated'`,
      )
      .get() as { n: number }
  ).n;
  db.close();

  server = await startServer({ DATA_DIR: dataDir });
  for (const id of acknowledged) {
    const res = await fetch(`${server.baseUrl}/api/items/${id}`);
    if (res.status !== 200) t.fail(`acknowledged item ${id} is missing after the crash`);
  }
  t.pass(`all ${acknowledged.length} acknowledged items are there`);
  const list = await fetch(`${server.baseUrl}/api/items?per_page=1`);
  t.equal(
    Number(list.headers.get('platform-total-results')),
    itemStreams,
    'projections caught up with every stored item',
  );
  const after = await fetch(`${server.baseUrl}/api/items?key_identity=ID&key_credential=CRED`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ 'o:title': 'After the crash' }),
  });
  t.equal(after.status, 201, 'the server takes writes again');
});
