import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { createRuntime } from '../../../app/runtime.js';
import { appModules } from '../../../app/modules.js';
import { requestBackup } from '../../../commands/backups/handlers.js';
import { backupsDir } from '../../../contracts/backups/paths.js';
import type { AppConfig } from '../../../infra/config.js';
import { PostgresBackupArchives } from '../../../infra/backup-archives/postgres.js';
import { findBackup } from '../../../queries/backups/backups.js';
import { downloadArchive } from '../../../workers/backups/download-archive.js';
import { INTERRUPTED_MESSAGE } from '../../../workers/backups/interrupted.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { testConfig } from '../../test-config.js';
import { freshSchemaUrl } from '../../infra/event-store/postgres-schemas.js';

/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const URL = process.env.PG_EVENTSTORE_URL ?? '';
const SKIP = {
  skip: process.env.PG_EVENTSTORE_URL
    ? false
    : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
};
const admin = keyFor('global_admin');
const fixture = { users: ROLE_USERS.slice(0, 1) };
const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: true };
type Record = { [key: string]: unknown };

/** FILES_URL (and, for two hosts, EVENTSTORE_URL) on a schema of the test's own, dropped after it. */
const sharedStorage = (t: { teardown(fn: () => unknown): void }) => freshSchemaUrl(t, URL);

function stagedFiles(config: AppConfig): string[] {
  const dir = backupsDir(config.dataDir);
  return existsSync(dir) ? readdirSync(dir) : [];
}

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

t.test('the backup job writes into the PostgreSQL store; retention removes from it', SKIP, async (t) => {
  const { url } = sharedStorage(t);
  const { app, runtime, config } = await buildTestApp(t, { fixture, config: { filesUrl: url, backupRetention: 1 } });
  const first = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
  t.equal(first['o:status'], 'complete');
  t.same(
    (await runtime.backupArchives.list()).map((a) => ({ filename: a.filename, size: a.size })),
    [{ filename: first['o:filename'], size: first['o:size'] }],
    'the archive is in the store, at its size',
  );
  t.same(stagedFiles(config), [], 'and not on this disk');
  const second = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
  t.equal(second['o:status'], 'complete');
  t.same(
    (await runtime.backupArchives.list()).map((a) => a.filename),
    [second['o:filename']],
    'retention removed the older archive from the store',
  );
  const list = json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` }));
  t.same(
    list.map((r) => r['o:id']),
    [second['o:id']],
  );
});

t.test('an archive the store refuses midway: the record failed, nothing half written anywhere', SKIP, async (t) => {
  const { schema, url } = sharedStorage(t);
  const { app, runtime, config } = await buildTestApp(t, { fixture, config: { filesUrl: url } });
  // The database itself refuses the second chunk row of any archive (a full tablespace would too).
  await sql(`CREATE FUNCTION "${schema}".refuse_chunk() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.n > 0 THEN RAISE EXCEPTION 'no room'; END IF; RETURN NEW; END $$`);
  await sql(`CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".backup_archive_chunks
    FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_chunk()`);
  // Files enough for an archive of several chunk rows.
  mkdirSync(`${config.dataDir}/themes`, { recursive: true });
  for (let i = 0; i < 4; i++)
    writeFileSync(`${config.dataDir}/themes/t${i}.bin`, (await import('node:crypto')).randomBytes(200_000));
  const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(res.statusCode, 500);
  t.same(json(res), { errors: { error: 'Backup failed: The backup archive could not be written.' } });
  const [record] = json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` }));
  t.equal(record['o:status'], 'failed');
  t.equal(record['o:storage'], 'postgresql');
  t.same(await runtime.backupArchives.list(), [], 'no archive in the store');
  const archives = runtime.backupArchives;
  if (!(archives instanceof PostgresBackupArchives)) throw new Error('not the PostgreSQL store');
  const { rows } = await archives.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${archives.table}`);
  t.equal(rows[0].n, 0, 'no row, pending or not');
  t.same(stagedFiles(config), [], 'no staging file or checksum file left');
});

t.test('a backup interrupted while put: the next start fails it and clears the store and the disk', SKIP, async (t) => {
  const { url } = sharedStorage(t);
  const config = testConfig(t.testdir(), { filesUrl: url });
  const before = await createRuntime(config, { modules: appModules, startWorkers: false });
  const id = await requestBackup(before.commandContext(1), { includes: ALL, archives: before.backupArchives });
  const record = await findBackup(before.documents, id);
  const archives = before.backupArchives;
  if (!record || !(archives instanceof PostgresBackupArchives))
    throw new Error('no record, or not the PostgreSQL store');
  // As a process killed mid-put leaves it: the staged zip on its disk, a pending row it owned.
  const staged = archives.stagingFile(record.filename);
  mkdirSync(backupsDir(config.dataDir), { recursive: true });
  writeFileSync(staged, 'a whole archive');
  writeFileSync(`${staged}.sha256`, 'x');
  await archives.pool.query(
    `INSERT INTO ${archives.table} (name, chunk_bytes, upload, modified_at) VALUES ($1, 1, $2, $3)`,
    [record.filename, `${encodeURIComponent(hostname())}@4194305@0.part`, Date.now()],
  );
  await before.close();

  const after = await createRuntime(config, { modules: appModules });
  t.teardown(() => after.close());
  await after.startWorkers();
  const now = await findBackup(after.documents, id);
  t.equal(now?.status, 'failed');
  t.equal(now?.error, INTERRUPTED_MESSAGE);
  t.same(stagedFiles(config), [], 'the staged archive and its checksum file are removed');
  const store = after.backupArchives;
  if (!(store instanceof PostgresBackupArchives)) throw new Error('not the PostgreSQL store');
  const { rows } = await store.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${store.table}`);
  t.equal(rows[0].n, 0, 'the half-put row is removed');
});

t.test('two hosts: an archive made on one is downloaded and deleted on the other', SKIP, async (t) => {
  const { url } = sharedStorage(t);
  const shared = { filesUrl: url, eventStoreUrl: url };
  const a = await buildTestApp(t, { fixture, config: shared });
  const made = json<Record>(await a.app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
  t.equal(made['o:status'], 'complete');
  // A test of its own: another testdir, so another DATA_DIR.
  t.test('the other host', async (t) => {
    const b = await buildTestApp(t, { config: shared });
    t.not(b.config.dataDir, a.config.dataDir, 'another DATA_DIR');
    await b.runtime.projections.catchUp();
    const id = made['o:id'] as number;
    const dest = join(t.testdir(), 'from-b.zip');
    const done = await downloadArchive(b.runtime, id, dest);
    t.same(done, { filename: made['o:filename'], size: made['o:size'], checksum: made['o:checksum'] });
    t.equal(
      `sha256:${createHash('sha256').update(readFileSync(dest)).digest('hex')}`,
      made['o:checksum'],
      'B copies out the bytes A archived',
    );
    const onB = json<Record>(await b.app.inject({ method: 'GET', url: `/api/backups/${id}?${admin}` }));
    t.equal(onB['o:path'], made['o:path'], 'both hosts show the same o:path');
    const deleted = await b.app.inject({ method: 'DELETE', url: `/api/backups/${id}?${admin}` });
    t.equal(deleted.statusCode, 200);
    t.equal(await a.runtime.backupArchives.stat(made['o:filename'] as string), null, 'gone for the host that made it');
    t.same(stagedFiles(a.config), [], 'which keeps nothing of it on its disk');
  });
});
