import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { AppConfig } from '../../../infra/config.js';
import { requestBackup, failBackup } from '../../../commands/backups/handlers.js';
import { backupsDir } from '../../../contracts/backups/paths.js';
import { verifyArchive } from '../../../workers/backups/verify-archive.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../../helper.js';
import { freshSchemaUrl } from '../../infra/event-store/postgres-schemas.js';

type Record = { [key: string]: unknown };
const fixture = { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main' }] };
const admin = keyFor('global_admin');
const URL = process.env.PG_EVENTSTORE_URL;
const ALL = { include_db: true, include_files: true, include_themes: true, include_modules: true, include_api: true };

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** GET /api/backups/{id}/archive, on both stores: DATA_DIR/backups, and FILES_URL's PostgreSQL. */
function downloadSuite(
  name: string,
  storage: (t: { teardown(fn: () => unknown): void }) => Partial<AppConfig> | null,
  skip?: string,
): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const config = storage(t) ?? {};
    const { app, runtime } = await buildTestApp(t, { fixture, config });
    const kind = config.filesUrl ? 'postgresql' : 'local';
    const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
    t.equal(res.statusCode, 201, res.body);
    const record = json<Record>(res);
    const id = record['o:id'] as number;
    const url = (query: string) => `/api/backups/${id}/archive?${query}`;
    t.equal(record['o:storage'], kind);
    if (kind === 'postgresql') {
      t.match(
        record['o:path'],
        new RegExp(
          `^postgresql://127\\.0\\.0\\.1:5432/test\\?schema=es_test_[0-9a-f]{32}#backups/${record['o:filename'] as string}$`,
        ),
        'o:path names the store, never credentials',
      );
      const staged = existsSync(backupsDir(runtime.config.dataDir))
        ? readdirSync(backupsDir(runtime.config.dataDir))
        : [];
      t.same(staged, [], 'no staging file, no checksum file left in DATA_DIR/backups');
    }

    let whole: Buffer = Buffer.alloc(0);
    t.test('the archive as it was made: its bytes, their checksum, a restorable zip', async (t) => {
      const got = await app.inject({ method: 'GET', url: url(admin) });
      t.equal(got.statusCode, 200);
      t.equal(got.headers['content-type'], 'application/zip');
      t.match(got.headers['content-disposition'], `attachment; filename="${record['o:filename'] as string}"`);
      t.equal(Number(got.headers['content-length']), record['o:size']);
      t.equal(got.headers['accept-ranges'], 'bytes');
      t.equal(got.headers['cache-control'], 'no-store');
      whole = got.rawPayload;
      t.equal(whole.length, record['o:size'], 'o:size bytes');
      t.equal(`sha256:${sha256(whole)}`, record['o:checksum'], 'they match o:checksum');
      t.equal(got.headers.etag, `"${sha256(whole)}"`, 'the ETag is the checksum');
      const file = join(t.testdir(), 'downloaded.zip');
      writeFileSync(file, whole);
      const checked = await verifyArchive(file);
      t.equal(checked.manifest.backup_id, id, 'a zip a restore takes: every entry matches its manifest');
      checked.zip.close();
      if (kind === 'local') t.ok(whole.equals(readFileSync(record['o:path'] as string)), 'the file at o:path');
    });

    t.test('one byte range: 206; outside: 416; If-None-Match: 304', async (t) => {
      const size = whole.length;
      for (const [range, start, end] of [
        ['bytes=0-99', 0, 99],
        ['bytes=100-', 100, size - 1],
        ['bytes=-10', size - 10, size - 1],
      ] as const) {
        const got = await app.inject({ method: 'GET', url: url(admin), headers: { range } });
        t.equal(got.statusCode, 206, range);
        t.equal(got.headers['content-range'], `bytes ${start}-${end}/${size}`);
        t.equal(Number(got.headers['content-length']), end - start + 1);
        t.ok(got.rawPayload.equals(whole.subarray(start, end + 1)), `${range}: those bytes`);
      }
      const outside = await app.inject({ method: 'GET', url: url(admin), headers: { range: `bytes=${size}-` } });
      t.equal(outside.statusCode, 416);
      t.equal(outside.headers['content-range'], `bytes */${size}`);
      const etag = `"${sha256(whole)}"`;
      const cached = await app.inject({ method: 'GET', url: url(admin), headers: { 'if-none-match': etag } });
      t.equal(cached.statusCode, 304);
      t.equal(cached.body, '');
    });

    t.test('the backups API roles only', async (t) => {
      const cookie = await sessionFor(app, 'site_admin');
      const bySession = await app.inject({ method: 'GET', url: url(''), headers: { cookie } });
      t.equal(bySession.statusCode, 200, 'a Supervisor by session');
      t.equal(bySession.rawPayload.length, whole.length);
      for (const role of ['editor', 'reviewer', 'author', 'researcher'] satisfies RoleName[]) {
        const refused = await app.inject({ method: 'GET', url: url(keyFor(role)) });
        t.equal(refused.statusCode, 403, role);
        t.same(Object.keys(json<Record>(refused)), ['errors']);
      }
      t.equal((await app.inject({ method: 'GET', url: url('') })).statusCode, 403, 'anonymous');
      const unknownToOthers = await app.inject({ method: 'GET', url: `/api/backups/999/archive?${keyFor('editor')}` });
      t.equal(unknownToOthers.statusCode, 403, 'permission before the id: nobody else learns what exists');
    });

    t.test('unknown 404, not complete 409, other methods 405', async (t) => {
      const unknown = await app.inject({ method: 'GET', url: `/api/backups/999/archive?${admin}` });
      t.equal(unknown.statusCode, 404);
      t.same(json(unknown), { errors: { error: 'Backup not found.' } });
      const bad = await app.inject({ method: 'GET', url: `/api/backups/abc/archive?${admin}` });
      t.ok(bad.statusCode >= 400 && bad.statusCode < 500, `a bad id: ${bad.statusCode}`);
      const pending = await requestBackup(runtime.commandContext(1), {
        includes: ALL,
        archives: runtime.backupArchives,
      });
      const inProgress = await app.inject({ method: 'GET', url: `/api/backups/${pending}/archive?${admin}` });
      t.equal(inProgress.statusCode, 409);
      t.same(json(inProgress), {
        errors: { error: `Backup ${pending} is in_progress: it has no archive to download.` },
      });
      await failBackup(runtime.commandContext(1), pending, 'disk full');
      const failed = await app.inject({ method: 'GET', url: `/api/backups/${pending}/archive?${admin}` });
      t.equal(failed.statusCode, 409);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const refused = await app.inject({ method, url: url(admin) });
        t.equal(refused.statusCode, 405, method);
        t.equal(refused.headers.allow, 'GET');
      }
    });

    t.test('deleted: the archive is gone from the store, the download 404', async (t) => {
      const deleted = await app.inject({ method: 'DELETE', url: `/api/backups/${id}?${admin}` });
      t.equal(deleted.statusCode, 200);
      t.equal(await runtime.backupArchives.stat(record['o:filename'] as string), null, 'removed from the store');
      t.equal((await app.inject({ method: 'GET', url: url(admin) })).statusCode, 404);
    });

    t.test('a complete record whose archive is not in the store: 404', async (t) => {
      const made = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
      await runtime.backupArchives.remove(made['o:filename'] as string);
      const got = await app.inject({ method: 'GET', url: `/api/backups/${made['o:id'] as number}/archive?${admin}` });
      t.equal(got.statusCode, 404);
      t.same(json(got), {
        errors: { error: `The archive of backup ${made['o:id'] as number} is not in this server's backup storage.` },
      });
    });
  });
}

downloadSuite('download from DATA_DIR/backups', () => null);

downloadSuite(
  'download from FILES_URL (PostgreSQL)',
  (t) => ({ filesUrl: freshSchemaUrl(t, URL ?? '').url }),
  URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
);

t.test('a local record whose archive was removed by hand: 404', async (t) => {
  const { app, config } = await buildTestApp(t, { fixture });
  const made = json<Record>(await app.inject({ method: 'POST', url: `/api/backups?${admin}` }));
  rmSync(join(config.dataDir, 'backups', made['o:filename'] as string));
  const got = await app.inject({ method: 'GET', url: `/api/backups/${made['o:id'] as number}/archive?${admin}` });
  t.equal(got.statusCode, 404);
});
