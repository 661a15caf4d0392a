import type { AppModule, ModuleInstance } from '../kernel.js';
import { backupsProjection } from '../../projections/backups/backups.js';
import { backupScheduleProjection } from '../../projections/backups/schedule.js';
import { backupRoutes } from '../../routes/backups/index.js';
import { BACKUP_QUEUE, runBackupJob, type BackupJobData } from '../../workers/backups/backup-job.js';
import { type BackupJobResult } from '../../contracts/backups/backup-service.js';
import { failInterruptedBackups } from '../../workers/backups/interrupted.js';
import { ApiSource } from '../../workers/backups/api-export.js';
import { backupService } from '../../workers/backups/backup-service.js';
import {
  BACKUP_SCHEDULE_QUEUE,
  BACKUP_SCHEDULER_ID,
  runScheduledBackup,
} from '../../workers/backups/scheduled-backup.js';

/** Backups: archives of the event log, files, themes, modules and API exports; restore is bin/restore.ts. */
export const backupsModule: AppModule<BackupsModuleInstance> = {
  name: 'backups',
  projections: [backupsProjection, backupScheduleProjection],
  create(runtime) {
    const apiSource = new ApiSource();
    return {
      apiSource,
      routes: backupRoutes(backupService(runtime, apiSource)),
      async startWorkers() {
        // Jobs of the in-process queue die with the process; BullMQ's may still run in another one.
        if (!runtime.jobs.durable) await failInterruptedBackups(runtime);
        // One at a time: archives compete for the same disk, and each holds a consistent log prefix.
        await runtime.jobs.process<BackupJobData, BackupJobResult>(
          BACKUP_QUEUE,
          (data) => runBackupJob(runtime, apiSource, data),
          { concurrency: 1 },
        );
        await runtime.jobs.process(BACKUP_SCHEDULE_QUEUE, (_data, job) => runScheduledBackup(runtime, job), {
          concurrency: 1,
        });
        // Unset, it removes a schedule an earlier start left (in Redis): the configuration decides.
        await runtime.jobs
          .schedule(BACKUP_SCHEDULE_QUEUE, BACKUP_SCHEDULER_ID, runtime.config.backupSchedule, {})
          .catch((err: unknown) => {
            // Redis away never stops a start; the scheduler kept in Redis from an earlier start goes on.
            runtime.logger.error(
              { err },
              'the backup schedule could not be set in the job queue; it is set at the next start',
            );
          });
      },
    };
  },
};

export interface BackupsModuleInstance extends ModuleInstance {
  /** The app the backup worker exports the API through, once the routes are registered on one. */
  apiSource: ApiSource;
}
