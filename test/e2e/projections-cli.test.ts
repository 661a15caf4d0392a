import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import type { HealthReport } from '../../app/health/report.js';
import { ROLE_USERS } from '../helper.js';
import { runCli, startServer } from './process.js';

// Two server starts and five CLI runs, each compiling with tsx: slow on a busy machine, never stuck.
t.setTimeout(600_000);

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };
const ADMIN_KEY = 'key_identity=global_admin-id&key_credential=global_admin-secret';

async function health(url: string): Promise<HealthReport> {
  return (await (await fetch(`${url}/health`)).json()) as HealthReport;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test(
  'a projection parks on a bad event in the real server; the CLI lists it, retries it, and skips it by position',
  async (t) => {
    const dataDir = join(t.testdir(), 'data');
    const fixtureFile = join(t.testdir(), 'fixture.json');
    writeFileSync(fixtureFile, JSON.stringify({ users: ROLE_USERS.slice(0, 1) }));
    t.equal((await runCli('import.ts', [fixtureFile], { DATA_DIR: dataDir })).code, 0);

    let server = await startServer({ DATA_DIR: dataDir }, 120_000);
    t.teardown(() => server.stop());
    const env = () => {
      const { hostname, port } = new URL(server.baseUrl);
      return { DATA_DIR: dataDir, HOST: hostname, PORT: port };
    };

    // Another process appends to the log, as the CLIs do: a record the backups projection cannot
    // fold (a BackupCompleted without data: its handler throws reading the id), then a good one.
    const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
    const bad = await store.append('backup-900', [{ type: 'BackupCompleted', data: null, metadata: meta }], 0);
    const good = await store.append(
      'backup-901',
      [
        {
          type: 'BackupRequested',
          data: {
            id: 901,
            filename: 'backup-901.zip',
            path: '/elsewhere/backup-901.zip',
            storage: 'local',
            includes: {
              include_db: true,
              include_files: true,
              include_themes: true,
              include_modules: true,
              include_api: true,
            },
            created_by: null,
            created_at: '2026-01-01T00:00:00.000Z',
            module_version: '1.0.0',
          },
          metadata: meta,
        },
      ],
      0,
    );
    await store.close();
    await until('the backups projection to park', async () => (await health(server.baseUrl)).parked.length > 0);
    const report = await health(server.baseUrl);
    t.match(report.parked, [{ name: 'backups', position: bad.position, event_type: 'BackupCompleted' }]);
    t.match(
      report.projections.find((p) => p.name === 'users'),
      { stale: false },
      'the others go on',
    );
    const list = await (await fetch(`${server.baseUrl}/api/backups?${ADMIN_KEY}`)).json();
    t.same(list, [], 'nothing after the parked event is applied to the backups read model');

    const listed = await runCli('projections.ts', [], env());
    t.equal(listed.code, 0, listed.stderr);
    t.match(listed.stdout, new RegExp(`backups is parked at position ${bad.position} \\(BackupCompleted\\)`));
    t.match(listed.stdout, new RegExp(`npm run projections -- skip backups ${bad.position}`));

    const wrong = await runCli('projections.ts', ['skip', 'backups', String(good.position)], env());
    t.equal(wrong.code, 1, 'a skip of an event the projection is not parked at is refused');
    t.match(wrong.stderr, new RegExp(`backups is parked at position ${bad.position}, not ${good.position}`));
    const noServer = await runCli('projections.ts', ['--server', 'http://127.0.0.1:9'], env());
    t.equal(noServer.code, 1);
    t.match(noServer.stderr, /No server answered at http:\/\/127\.0\.0\.1:9\/health/);
    const unknown = await runCli('projections.ts', ['retry', 'nonesuch'], env());
    t.equal(unknown.code, 1);
    t.match(unknown.stderr, /There is no projection named "nonesuch"/);

    const retried = await runCli('projections.ts', ['retry', 'backups'], env());
    t.equal(retried.code, 1, 'the handler still fails: a retry parks it again');
    t.match(retried.stdout, new RegExp(`backups is parked again at position ${bad.position}`));

    const skipped = await runCli('projections.ts', ['skip', 'backups', String(bad.position)], env());
    t.equal(skipped.code, 0, skipped.stderr);
    t.match(skipped.stdout, /backups resumed/);
    const after = await health(server.baseUrl);
    t.same(after.parked, []);
    const resumed = (await (await fetch(`${server.baseUrl}/api/backups?${ADMIN_KEY}`)).json()) as { 'o:id': number }[];
    t.same(
      resumed.map((b) => b['o:id']),
      [901],
      'the events after the skipped one are applied',
    );

    // A restart replays the log: the recorded skip still passes over the bad event.
    await server.stop();
    server = await startServer({ DATA_DIR: dataDir }, 120_000);
    t.same((await health(server.baseUrl)).parked, [], 'no projection parks again after a restart');
  },
);
