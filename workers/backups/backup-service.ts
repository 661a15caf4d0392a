import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { BackupService } from '../../contracts/backups/backup-service.js';
import type { ApiSource } from './api-export.js';
import { makeBackup, queuedBackupJob } from './make-backup.js';
import { removeArchive } from './remove-archive.js';
import { archiveLocation } from './archive-store.js';

/** What the backup routes ask of this worker, in one runtime: backups through the job queue. */
export function backupService(runtime: ModuleRuntime, apiSource: ApiSource): BackupService {
  return {
    attach: (app) => apiSource.attach(app),
    make: (order) => makeBackup(runtime, order, queuedBackupJob(runtime)),
    removeArchive: (record) => removeArchive(runtime, record),
    archiveLocation: (record) => archiveLocation(runtime, record),
  };
}
