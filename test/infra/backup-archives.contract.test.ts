import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import t from 'tap';
import { LocalBackupArchives } from '../../infra/backup-archives/local.js';
import { checksumFileFor } from '../../infra/backup-archives/paths.js';
import type { BackupArchives, StagedArchive } from '../../infra/backup-archives/port.js';
import { backupArchivesLocation, PostgresBackupArchives } from '../../infra/backup-archives/postgres.js';
import { CHUNK_BYTES } from '../../infra/file-storage/postgres.js';
import { dropSchema, freshSchema } from './event-store/postgres-schemas.js';
import { patterned, readAll } from './file-storage/bytes.js';

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

/** One test's store; `another` opens a second one on the same storage from another DATA_DIR (a second host), null where there is none. */
interface Subject {
  archives: BackupArchives;
  another(): Promise<BackupArchives> | null;
  /** Puts under way or left half done. */
  pendingPuts(): Promise<number>;
}

type Factory = (t: Context) => Promise<Subject>;

const PG_EVENTSTORE_URL = process.env.PG_EVENTSTORE_URL;

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

/** An archive as the job leaves it: the zip at the staging file, its checksum file beside it. */
function stage(archives: BackupArchives, filename: string, content: Buffer): StagedArchive {
  const path = archives.stagingFile(filename);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  writeFileSync(checksumFileFor(path), `${sha256(content)}  ${basename(path)}\n`);
  return { path, size: content.length, sha256: sha256(content) };
}

async function put(archives: BackupArchives, filename: string, content: Buffer): Promise<StagedArchive> {
  const staged = stage(archives, filename, content);
  await archives.put(filename, staged);
  return staged;
}

/** The contract every BackupArchives adapter keeps. */
function backupArchivesContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;
    const FILE = 'backup-1-20260102-030405.zip';

    t.test('put, stat, read whole and by range, list', async (t) => {
      const { archives, pendingPuts } = await make(t);
      const C = CHUNK_BYTES;
      const content = patterned(2 * C + 1000);
      t.equal(await archives.stat(FILE), null, 'nothing before the put');
      t.same(await archives.list(), []);
      const staged = await put(archives, FILE, content);
      t.same(await archives.stat(FILE), { size: content.length });
      t.ok((await readAll(archives.openRead(FILE))).equals(content), 'the bytes put');
      for (const [start, end] of [
        [0, 0],
        [C - 1, C],
        [C + 5, 2 * C + 999],
        [content.length - 1, content.length - 1],
      ]) {
        const bytes = await readAll(archives.openRead(FILE, { start, end }));
        t.ok(bytes.equals(content.subarray(start, end + 1)), `bytes ${start}-${end}`);
      }
      const listed = await archives.list();
      t.same(
        listed.map(({ filename, size }) => ({ filename, size })),
        [{ filename: FILE, size: content.length }],
      );
      t.ok(Math.abs(listed[0].modifiedAt - Date.now()) < 60_000, 'when it was stored');
      t.equal(await pendingPuts(), 0, 'no put left under way');
      if (archives.kind === 'local') {
        t.ok(existsSync(staged.path), 'the staging file is the local archive');
        t.ok(existsSync(checksumFileFor(staged.path)), 'with its checksum file');
      } else {
        t.notOk(existsSync(staged.path), 'the staging file is removed once stored');
        t.notOk(existsSync(checksumFileFor(staged.path)), 'and its checksum file');
      }
    });

    t.test('an empty archive', async (t) => {
      const { archives } = await make(t);
      await put(archives, FILE, Buffer.alloc(0));
      t.same(await archives.stat(FILE), { size: 0 });
      t.same(await readAll(archives.openRead(FILE)), Buffer.alloc(0));
    });

    t.test('a staged file that does not match what the job measured is refused and nothing stored', async (t) => {
      const { archives, pendingPuts } = await make(t);
      const content = patterned(CHUNK_BYTES + 10);
      const staged = stage(archives, FILE, content);
      await t.rejects(archives.put(FILE, { ...staged, size: content.length + 1 }));
      if (archives.kind === 'postgresql') {
        t.equal(await archives.stat(FILE), null, 'not stored');
        t.same(await archives.list(), []);
        await t.rejects(archives.put(FILE, { ...staged, sha256: sha256(Buffer.from('other')) }), 'a checksum too');
        t.equal(await archives.stat(FILE), null, 'not stored');
      }
      t.equal(await pendingPuts(), 0, 'no put left half done');
    });

    t.test('remove: gone for stat, read and list; a missing one is no error', async (t) => {
      const { archives } = await make(t);
      await put(archives, FILE, patterned(1000));
      await put(archives, 'backup-2-20260102-030406.zip', patterned(10));
      await archives.remove(FILE);
      t.equal(await archives.stat(FILE), null);
      await t.rejects(readAll(archives.openRead(FILE)), { code: 'ENOENT' });
      t.same(
        (await archives.list()).map((a) => a.filename),
        ['backup-2-20260102-030406.zip'],
      );
      t.notOk(existsSync(archives.stagingFile(FILE)), 'nothing of it on this disk');
      await archives.remove(FILE);
      await archives.remove('backup-9-20260102-030405.zip');
    });

    t.test('names that could leave the store are refused before anything is touched', async (t) => {
      const { archives } = await make(t);
      for (const bad of ['../x.zip', 'a/b.zip', 'backup.tar', '', '.zip', 'x..zip']) {
        t.equal(await archives.stat(bad), null, `stat ${JSON.stringify(bad)}`);
        t.throws(() => archives.openRead(bad), `openRead ${JSON.stringify(bad)}`);
        await t.rejects(archives.remove(bad), `remove ${JSON.stringify(bad)}`);
        t.throws(() => archives.stagingFile(bad), `stagingFile ${JSON.stringify(bad)}`);
      }
    });

    t.test('location names the archive', async (t) => {
      const { archives } = await make(t);
      t.ok(archives.location(FILE).endsWith(FILE));
    });

    t.test('another server on the same storage reads and removes what this one put', async (t) => {
      const { archives, another } = await make(t);
      const other = another();
      if (!other) return t.pass('one host only: DATA_DIR/backups is not shared');
      const second = await other;
      const content = patterned(CHUNK_BYTES * 2);
      await put(archives, FILE, content);
      t.same(await second.stat(FILE), { size: content.length });
      t.ok((await readAll(second.openRead(FILE))).equals(content), 'the same bytes');
      t.equal(second.location(FILE), archives.location(FILE), 'the same o:path');
      await second.remove(FILE);
      t.equal(await archives.stat(FILE), null, 'removed for the first too');
    });
  });
}

backupArchivesContract('local backup archives (DATA_DIR/backups)', async (t) => {
  const archives = new LocalBackupArchives(t.testdir());
  return { archives, another: () => null, pendingPuts: () => Promise.resolve(0) };
});

/** Pending rows of a PostgreSQL store. */
async function pendingRows(archives: PostgresBackupArchives): Promise<number> {
  const { rows } = await archives.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${archives.table} WHERE upload IS NOT NULL`,
  );
  return rows[0].n;
}

backupArchivesContract(
  'PostgreSQL backup archives (FILES_URL)',
  PG_EVENTSTORE_URL
    ? async (t) => {
        const url = PG_EVENTSTORE_URL;
        const schema = freshSchema();
        const open = (dataDir: string) =>
          new PostgresBackupArchives(url, { schema, dataDir, location: backupArchivesLocation(url, schema) });
        const archives = open(t.testdir());
        const others: PostgresBackupArchives[] = [];
        t.teardown(async () => {
          await archives.close();
          for (const other of others) await other.close();
          await dropSchema(url, schema);
        });
        return {
          archives,
          another: async () => {
            // Another DATA_DIR (asking t.testdir() again would empty the first one).
            const dir = mkdtempSync(join(tmpdir(), 'backup-archives-'));
            t.teardown(() => rmSync(dir, { recursive: true, force: true }));
            const other = open(dir);
            others.push(other);
            return other;
          },
          pendingPuts: () => pendingRows(archives),
        };
      }
    : null,
  PG_EVENTSTORE_URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
);

t.test(
  'PostgreSQL: a put a killed process left is removed at the next start; a live one is kept',
  { skip: PG_EVENTSTORE_URL ? false : 'PG_EVENTSTORE_URL unset' },
  async (t) => {
    const url = PG_EVENTSTORE_URL ?? '';
    const schema = freshSchema();
    const archives = new PostgresBackupArchives(url, { schema, dataDir: t.testdir(), location: 'x' });
    t.teardown(async () => {
      await archives.close();
      await dropSchema(url, schema);
    });
    await archives.schemaReady();
    const now = Date.now();
    const host = encodeURIComponent(hostname());
    // No process has pid 2^22 + 1 (Linux's pid_max is at most 2^22).
    const dead = `${host}@4194305@0.part`;
    const live = `${host}@${process.pid}@1.part`;
    for (const [name, upload] of [
      ['backup-1-20260102-030405.zip', dead],
      ['backup-2-20260102-030405.zip', live],
    ])
      await archives.pool.query(
        `INSERT INTO ${archives.table} (name, chunk_bytes, upload, modified_at) VALUES ($1, 1, $2, $3)`,
        [name, upload, now],
      );
    t.equal(await archives.removeLeftovers({ startedAt: now - 1000, now }), 1, 'the dead process put');
    t.equal(await pendingRows(archives), 1, 'this process put, under way, stays');
    t.same(await archives.list(), [], 'neither was ever listed');
  },
);

t.test('the location names host, port, database and schema, never credentials', async (t) => {
  t.equal(
    backupArchivesLocation('postgres://user:secret@db.example:6543/collections?sslmode=require', 'archives'),
    'postgresql://db.example:6543/collections?schema=archives',
  );
  t.equal(
    backupArchivesLocation('postgresql://db/collections', undefined),
    'postgresql://db:5432/collections?schema=public',
  );
});
