import type { AppModule } from '../kernel.js';
import { backupsProjection } from '../../projections/backups/backups.js';
import { backupRoutes } from '../../routes/backups/index.js';
import { BACKUP_QUEUE, runBackupJob, type BackupJobData, type BackupJobResult } from '../../workers/backups/backup-job.js';
import { failInterruptedBackups } from '../../workers/backups/interrupted.js';

/** Backups: archives of the event log, files, themes, modules and API exports; restore is bin/restore.ts. */
export const backupsModule: AppModule = {
  name: 'backups',
  projections: [backupsProjection],
  routes: backupRoutes,
  async startWorkers(runtime) {
    // Jobs of the in-process queue die with the process; BullMQ's may still run in another one.
    if (!runtime.jobs.durable) await failInterruptedBackups(runtime);
    // One at a time: archives compete for the same disk, and each holds a consistent log prefix.
    await runtime.jobs.process<BackupJobData, BackupJobResult>(BACKUP_QUEUE, (data) => runBackupJob(runtime, data), { concurrency: 1 });
  },
};
