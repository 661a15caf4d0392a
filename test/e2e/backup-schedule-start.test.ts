import t from 'tap';
import { runCli } from './process.js';

t.test('a bad BACKUP_SCHEDULE refuses to start the server, naming the variable', async (t) => {
  const dataDir = t.testdir();
  for (const [env, message] of [
    [
      { BACKUP_SCHEDULE: '*/5 * * * *' },
      'BACKUP_SCHEDULE must not run more often than every 15 minutes, got "*/5 * * * *" (runs 5 minutes apart).',
    ],
    [
      { BACKUP_SCHEDULE: 'at three' },
      'BACKUP_SCHEDULE must be a cron expression such as "0 3 * * *" (minute hour day-of-month month day-of-week, UTC time), got "at three" (2 fields, not 5).',
    ],
    [
      { BACKUP_SCHEDULE: '0 3 * * *', BACKUP_SCHEDULE_TZ: 'Lisbon' },
      'BACKUP_SCHEDULE_TZ must be an IANA time zone such as UTC or Europe/Lisbon, got "Lisbon".',
    ],
  ] as const) {
    const run = await runCli('serve.ts', [], { DATA_DIR: dataDir, PORT: '0', ...env });
    t.equal(run.code, 1, JSON.stringify(env));
    t.equal(run.stderr.trim(), message);
  }
});
