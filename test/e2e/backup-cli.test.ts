import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROLE_USERS } from '../helper.js';
import { unzip } from '../workers/backups/zip-helpers.js';
import { importFixtureFile, runCli, startServer } from './process.js';

// A server and several CLIs, each compiling the app with tsx: slow on a busy machine, never stuck.
t.setTimeout(600_000);

const ADMIN_KEY = 'key_identity=global_admin-id&key_credential=global_admin-secret';
const fixture = { users: ROLE_USERS.slice(0, 1), sites: [{ id: 1, slug: 'main', title: 'Main site' }] };

type BackupRecord = { [key: string]: unknown };

/** Mounts a tiny tmpfs over `dir`: a disk that fills up. Returns the unmount. */
function mountSmallDisk(dir: string, bytes: number): () => void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  return () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** Whether this process may mount (root with CAP_SYS_ADMIN, as in CI); otherwise the full-disk test skips. */
function mountSkipReason(): string | false {
  const dir = mkdtempSync(join(tmpdir(), 'backup-cli-mount-'));
  try {
    mountSmallDisk(dir, 4096)();
    return false;
  } catch {
    return 'cannot mount a tmpfs here (needs root): no full disk to fill';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('npm run backup beside a running server on the same DATA_DIR', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'backup-cli');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  mkdirSync(join(dataDir, 'files'), { recursive: true });
  writeFileSync(join(dataDir, 'files', 'scan.txt'), 'scan');
  mkdirSync(join(dataDir, 'themes'), { recursive: true });
  writeFileSync(join(dataDir, 'themes', 'site.css'), 'body {}');
  const server = await startServer({ DATA_DIR: dataDir }, 120_000);
  t.teardown(() => server.stop());
  const list = async (): Promise<BackupRecord[]> =>
    (await (await fetch(`${server.baseUrl}/api/backups?${ADMIN_KEY}`)).json()) as BackupRecord[];

  t.test('an unknown flag is refused by name, and nothing is recorded', async (t) => {
    const run = await runCli('backup.ts', ['--no-everything'], { DATA_DIR: dataDir });
    t.equal(run.code, 2);
    t.match(run.stderr, /^Unknown argument "--no-everything"\. Usage: npm run backup -- \[--no-db\]/);
    t.same(await list(), []);
  });

  let viaApi: BackupRecord = {};
  t.test('a backup through the API first, credited to its caller', async (t) => {
    const res = await fetch(`${server.baseUrl}/api/backups?${ADMIN_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"include_api": false}',
    });
    t.equal(res.status, 201);
    viaApi = (await res.json()) as BackupRecord;
    t.equal(viaApi['o:created_by'], 1);
  });

  t.test(
    'the CLI backup: same archive, flags as includes, created_by null, retention after; in the server list at once',
    async (t) => {
      const run = await runCli('backup.ts', ['--no-themes'], { DATA_DIR: dataDir, BACKUP_RETENTION: '1' });
      t.equal(run.code, 0, run.stderr);
      t.match(run.stdout, /^Backup 2 complete: .*backup-2-\d{8}-\d{6}\.zip \(\d+ bytes, sha256:[0-9a-f]{64}\)\.$/m);
      t.match(run.stdout, /^Retention deleted 1 older backup\(s\): 1\.$/m);
      t.match(run.stderr, /backup \[.*\] 100% \| (\d+)\/\1/, 'a progress bar that reaches its total');

      // Asked the moment the CLI exited: no wait, no retry.
      const records = await list();
      t.equal(records.length, 1, 'the API backup went to retention');
      const [record] = records;
      t.match(record, {
        'o:id': 2,
        'o:status': 'complete',
        'o:created_by': null,
        'o:checksum': /^sha256:[0-9a-f]{64}$/,
        'o:metadata': {
          includes: {
            include_db: true,
            include_files: true,
            include_themes: false,
            include_modules: true,
            include_api: true,
          },
        },
      });
      t.notOk('o:error' in record, 'no o:error on a backup that did not fail');
      t.notOk(existsSync(viaApi['o:path'] as string), 'the older archive was removed');
      const entries = await unzip(record['o:path'] as string);
      t.ok(entries.has('events.ndjson'), 'the log');
      t.ok(entries.has('read-side/read-models.sqlite'), 'the read-side snapshot');
      t.ok(entries.has('files/scan.txt'), 'uploaded files');
      t.notOk(
        [...entries.keys()].some((name) => name.startsWith('themes/')),
        'no themes: --no-themes',
      );
      t.ok(entries.has('api/api/sites.json'), 'the API exports, as an anonymous visitor sees them');
      const manifest = JSON.parse((entries.get('manifest.json')?.content ?? Buffer.from('{}')).toString()) as {
        backup_id: number;
        includes: object;
      };
      t.equal(manifest.backup_id, 2);
    },
  );

  t.test(
    'with a full disk: exit 1, one line saying why, the record failed with the reason, no partial archive',
    { skip: mountSkipReason() },
    async (t) => {
      const backups = join(dataDir, 'backups');
      t.teardown(mountSmallDisk(backups, 128 * 1024));
      // Random bytes do not compress: the archive cannot fit in 128 KiB.
      writeFileSync(join(dataDir, 'files', 'large.bin'), randomBytes(512 * 1024));
      const run = await runCli('backup.ts', ['--no-api'], { DATA_DIR: dataDir });
      t.equal(run.code, 1);
      const lines = run.stderr.trim().split('\n');
      t.equal(
        lines.at(-1),
        'Backup failed: There is not enough disk space for the backup archive. (record 3 is kept as failed)',
      );
      t.equal(run.stdout, '', 'nothing on stdout');
      t.same(readdirSync(backups), [], 'no partial archive, checksum or snapshot is left on the full disk');
      // The server folds the CLI's events from the shared log; a failure ends the CLI within
      // moments, so the record may take a poll or two to be listed (bounded: 10 s).
      let failed: BackupRecord | undefined;
      for (
        const deadline = Date.now() + 10_000;
        !failed && Date.now() < deadline;
        await new Promise((r) => setTimeout(r, 100))
      ) {
        failed = (await list()).find((r) => r['o:id'] === 3 && r['o:status'] === 'failed');
      }
      t.match(failed, {
        'o:status': 'failed',
        'o:created_by': null,
        'o:size': 0,
        'o:checksum': null,
        'o:error': 'There is not enough disk space for the backup archive.',
      });
    },
  );
});
