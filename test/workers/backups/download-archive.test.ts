import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { requestBackup } from '../../../commands/backups/handlers.js';
import type { AppConfig } from '../../../infra/config.js';
import { downloadArchive, DownloadRefusedError } from '../../../workers/backups/download-archive.js';
import { checkChecksumFile, verifyArchive } from '../../../workers/backups/verify-archive.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { freshSchemaUrl } from '../../infra/event-store/postgres-schemas.js';

const URL = process.env.PG_EVENTSTORE_URL;
const admin = keyFor('global_admin');
const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: true };
type Record = { [key: string]: unknown };

/** A folder outside DATA_DIR (t.testdir() is DATA_DIR, and asking for it again empties it). */
function destDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'backup-download-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `npm run backup:download`'s work, on both stores. */
function downloadSuite(
  name: string,
  storage: (t: { teardown(fn: () => unknown): void }) => Partial<AppConfig>,
  skip?: string,
) {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const config = storage(t);
    const { app, runtime } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) }, config });
    const made = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
    const id = made['o:id'] as number;
    const dir = destDir(t);
    const dest = join(dir, 'copy.zip');
    const sizes: number[] = [];
    let ticked = 0;
    const done = await downloadArchive(runtime, id, dest, {
      start: (total) => sizes.push(total),
      tick: (amount) => (ticked += amount),
    });
    t.same(done, { filename: made['o:filename'], size: made['o:size'], checksum: made['o:checksum'] });
    t.same(sizes, [made['o:size']], 'the bar is told the size');
    t.equal(ticked, made['o:size'], 'then every byte');
    t.equal(
      `sha256:${createHash('sha256').update(readFileSync(dest)).digest('hex')}`,
      made['o:checksum'],
      'the bytes the backup archived',
    );
    t.equal(await checkChecksumFile(dest), true, 'with a .sha256 file a restore checks');
    const checked = await verifyArchive(dest);
    t.equal(checked.manifest.backup_id, id);
    checked.zip.close();
    t.notOk(existsSync(`${dest}.partial`));

    await t.rejects(downloadArchive(runtime, id, dest), DownloadRefusedError, 'an existing file is not overwritten');
    await t.rejects(downloadArchive(runtime, 999, join(dir, 'x.zip')), { message: 'No backup 999.' });
    const pending = await requestBackup(runtime.commandContext(1), { includes: ALL, archives: runtime.backupArchives });
    await t.rejects(downloadArchive(runtime, pending, join(dir, 'y.zip')), {
      message: `Backup ${pending} is in_progress: it has no archive.`,
    });
    t.notOk(existsSync(join(dir, 'x.zip')) || existsSync(join(dir, 'y.zip')), 'nothing written for a refusal');
  });
}

downloadSuite('download from DATA_DIR/backups', () => ({}));
downloadSuite(
  'download from FILES_URL (PostgreSQL)',
  (t) => ({ filesUrl: freshSchemaUrl(t, URL ?? '').url }),
  URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
);

t.test(
  'an archive changed in the store since it was recorded: refused, nothing left',
  { skip: URL ? false : 'PG_EVENTSTORE_URL unset' },
  async (t) => {
    const { schema, url } = freshSchemaUrl(t, URL ?? '');
    const { app, runtime } = await buildTestApp(t, {
      fixture: { users: ROLE_USERS.slice(0, 1) },
      config: { filesUrl: url },
    });
    const made = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
    const client = new pg.Client({ connectionString: URL });
    await client.connect();
    await client.query(
      `UPDATE "${schema}".backup_archive_chunks SET data = overlay(data placing '\\x00'::bytea from 1) WHERE n = 0`,
    );
    await client.end();
    const dest = join(destDir(t), 'copy.zip');
    await t.rejects(downloadArchive(runtime, made['o:id'] as number, dest), { message: /does not match/ });
    t.notOk(existsSync(dest) || existsSync(`${dest}.partial`), 'no file, no partial file');
  },
);

t.test('a local archive changed on disk: refused, nothing left', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) } });
  const made = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
  const file = made['o:path'] as string;
  const bytes = readFileSync(file);
  bytes[0] ^= 0xff;
  writeFileSync(file, bytes);
  const dest = join(destDir(t), 'copy.zip');
  await t.rejects(downloadArchive(runtime, made['o:id'] as number, dest), { message: /does not match/ });
  t.notOk(existsSync(dest) || existsSync(`${dest}.partial`));
});
