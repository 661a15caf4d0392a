import { existsSync } from 'node:fs';
import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { importFixture } from '../../../app/import-fixture.js';
import { appModules } from '../../../app/modules.js';
import { createRuntime, type Runtime } from '../../../app/runtime.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { listBackups } from '../../../queries/backups/backups.js';
import { lastScheduledBackup } from '../../../queries/backups/schedule.js';
import { BACKUP_QUEUE, type BackupJobData } from '../../../workers/backups/backup-job.js';
import { type BackupJobResult } from '../../../contracts/backups/backup-service.js';
import { makeBackup } from '../../../workers/backups/make-backup.js';
import { BACKUP_SCHEDULE_QUEUE, runScheduledBackup } from '../../../workers/backups/scheduled-backup.js';
import { json, ROLE_USERS } from '../../helper.js';
import { testConfig } from '../../test-config.js';

const EVERY_PART = {
  include_db: true,
  include_files: true,
  include_themes: true,
  include_modules: true,
  include_api: true,
};
const TICK = '2026-03-04T03:00:00.000Z';

async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test(
  "a scheduled backup at the clock's tick, with two job-queue consumers on one DATA_DIR: one backup",
  async (t) => {
    const dataDir = t.testdir();
    // An earlier backup through the API's path, by a user, before any schedule: retention's candidate.
    const before = await createRuntime(testConfig(dataDir), {
      modules: appModules,
      clock: new FixedClock(new Date('2026-03-03T12:00:00.000Z')),
    });
    await importFixture(before, { users: ROLE_USERS.slice(0, 1) });
    const earlier = await makeBackup(
      before,
      { userId: 1, includes: { ...EVERY_PART, include_api: false }, logger: before.logger },
      (data) => before.jobs.addAndWait<BackupJobData, BackupJobResult>(BACKUP_QUEUE, data),
    );
    t.equal(earlier.record?.status, 'complete');
    await before.close();

    // Two servers' runtimes, each owning an in-process queue whose timer fires at 03:00 by the clock, 300 ms from now.
    const clock = new FixedClock(new Date('2026-03-04T02:59:59.700Z'));
    const config = testConfig(dataDir, {
      baseUrl: 'http://test.local',
      backupRetention: 1,
      backupSchedule: { expression: '0 3 * * *', timezone: 'UTC' },
    });
    const runtimes: Runtime[] = [];
    t.teardown(async () => {
      for (const runtime of runtimes.reverse()) await runtime.close();
    });
    runtimes.push(
      await createRuntime(config, { modules: appModules, clock }),
      await createRuntime(config, { modules: appModules, clock }),
    );
    const [first, second] = runtimes;
    const app = await buildApp(first);
    t.teardown(() => app.close());

    await until(
      'the scheduled run ends',
      async () => (await lastScheduledBackup(first.documents))?.status === 'complete',
    );
    for (const runtime of runtimes) {
      await runtime.jobs.drain(BACKUP_SCHEDULE_QUEUE);
      await runtime.projections.catchUp();
    }
    const requested = (await first.eventStore.readAll(0, 10_000)).filter((e) => e.type === 'BackupRequested');
    t.equal(requested.length, 2, 'the earlier backup and one for the tick were requested, from either runtime');
    const backups = await listBackups(first.documents);
    t.equal(backups.length, 1, 'one backup for the tick; retention (1) removed the earlier one');
    const [made] = backups;
    t.match(made, {
      status: 'complete',
      created_by: null,
      includes: EVERY_PART,
      created_at: '2026-03-04T02:59:59.700Z',
    });
    t.ok(existsSync(made.path), 'its archive');
    t.notOk(existsSync(earlier.record?.path ?? ''), 'the earlier archive went to retention');
    t.same(await lastScheduledBackup(second.documents), {
      _id: 'last',
      tick: TICK,
      status: 'complete',
      backup_id: made.id,
      error: null,
    });

    t.test('/health shows the schedule, the next run and the last result', async (t) => {
      clock.set(new Date('2026-03-04T03:00:01.000Z'));
      const health = json<{ backup_schedule: unknown }>(await app.inject({ method: 'GET', url: '/health' }));
      t.same(health.backup_schedule, {
        expression: '0 3 * * *',
        timezone: 'UTC',
        next_run: '2026-03-05T03:00:00.000Z',
        last: { tick: TICK, status: 'complete', backup_id: made.id, error: null },
      });
    });

    t.test('the same tick delivered again, or an older one (missed while down), makes no second backup', async (t) => {
      t.same(await runScheduledBackup(second, { id: 'again', attemptsMade: 0, scheduledFor: new Date(TICK) }), {
        tick: TICK,
        status: 'taken elsewhere',
      });
      const older = '2026-03-03T03:00:00.000Z';
      t.same(await runScheduledBackup(first, { id: 'older', attemptsMade: 0, scheduledFor: new Date(older) }), {
        tick: older,
        status: 'taken elsewhere',
      });
      t.equal((await listBackups(first.documents)).length, 1);
    });
  },
);

t.test('without BACKUP_SCHEDULE, /health says so and no timer runs', async (t) => {
  const clock = new FixedClock(new Date('2026-03-04T02:59:59.900Z'));
  const runtime = await createRuntime(testConfig(t.testdir()), { modules: appModules, clock });
  const app = await buildApp(runtime);
  t.teardown(async () => {
    await app.close();
    await runtime.close();
  });
  t.equal(
    json<{ backup_schedule: unknown }>(await app.inject({ method: 'GET', url: '/health' })).backup_schedule,
    null,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.same(await listBackups(runtime.documents), []);
});
