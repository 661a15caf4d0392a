import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app/app.js';
import { loadConfig } from '../infra/config.js';
import { appModules } from '../app/modules.js';
import { backupsModule } from '../app/modules/backups.js';
import { createRuntime } from '../app/runtime.js';
import { runBackupJob } from '../workers/backups/backup-job.js';
import { makeBackup } from '../workers/backups/make-backup.js';
import { parseBackupFlags } from './backup-flags.js';
import { progressBar, type ProgressBar } from './progress.js';
import { errorMessage } from '../infra/errors.js';

/**
 * `npm run backup -- [--no-db] [--no-files] [--no-themes] [--no-modules] [--no-api]`: the backup
 * POST /api/backups makes, credited to nobody (`o:created_by: null`), then retention. It runs
 * beside a server on the same DATA_DIR: the record goes through the shared log and read models,
 * and the archive job runs here (a CLI runs no workers, and its bar follows the job's progress).
 * One line on stdout when it is complete; on failure one line on stderr and exit code 1, the
 * record kept as failed with the reason.
 */
async function main(): Promise<number> {
  const flags = parseBackupFlags(process.argv.slice(2));
  if ('error' in flags) {
    console.error(flags.error);
    return 2;
  }
  // The outcome is told in one line; LOG_LEVEL=warn (or lower) shows the details behind it.
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'fatal' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  let app: FastifyInstance | null = null;
  let bar: ProgressBar | undefined;
  const stopBar = () => {
    bar?.stop();
    bar = undefined;
  };
  try {
    // The api part is exported through the app, as the server's worker does, without listening.
    if (flags.includes.include_api) app = await buildApp(runtime);
    const { apiSource } = runtime.module(backupsModule);
    const progress = {
      start: (total: number) => (bar = progressBar('backup', total)),
      tick: (amount?: number) => bar?.tick(amount),
    };
    const order = { userId: null, includes: flags.includes, logger: runtime.logger };
    const made = await makeBackup(runtime, order, (data) => runBackupJob(runtime, apiSource, data, progress));
    stopBar();
    const record = made.record;
    if (made.outcome.status !== 'complete' || record?.status !== 'complete') {
      console.error(
        `Backup failed: ${made.outcome.error ?? record?.error ?? 'unknown reason.'} (record ${made.id} is kept as failed)`,
      );
      return 1;
    }
    console.log(`Backup ${record.id} complete: ${record.path} (${record.size} bytes, ${record.checksum ?? ''}).`);
    if (made.expired.length > 0)
      console.log(
        `Retention deleted ${made.expired.length} older backup(s): ${made.expired.map((r) => r.id).join(', ')}.`,
      );
    return 0;
  } finally {
    stopBar();
    await app?.close();
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Backup failed: ${errorMessage(error)}`);
    process.exit(1);
  },
);
