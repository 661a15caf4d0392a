import type { AppModule, ModuleInstance } from '../kernel.js';
import { backupsProjection } from '../../projections/backups/backups.js';
import { backupRoutes } from '../../routes/backups/index.js';
import { BACKUP_QUEUE, runBackupJob, type BackupJobData, type BackupJobResult } from '../../workers/backups/backup-job.js';
import { failInterruptedBackups } from '../../workers/backups/interrupted.js';
import { ApiSource } from '../../workers/backups/api-export.js';

/** Backups: archives of the event log, files, themes, modules and API exports; restore is bin/restore.ts. */
export const backupsModule: AppModule<BackupsModuleInstance> = {
  name: 'backups',
  projections: [backupsProjection],
  create(runtime) {
    const apiSource = new ApiSource();
    return {
      apiSource,
      routes: backupRoutes(apiSource),
      async startWorkers() {
        // Jobs of the in-process queue die with the process; BullMQ's may still run in another one.
        if (!runtime.jobs.durable) await failInterruptedBackups(runtime);
        // One at a time: archives compete for the same disk, and each holds a consistent log prefix.
        await runtime.jobs.process<BackupJobData, BackupJobResult>(BACKUP_QUEUE, (data) => runBackupJob(runtime, apiSource, data), { concurrency: 1 });
      },
    };
  },
};

export interface BackupsModuleInstance extends ModuleInstance {
  /** The app the backup worker exports the API through, once the routes are registered on one. */
  apiSource: ApiSource;
}
