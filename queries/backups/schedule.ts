import type { DocumentStore } from '../../infra/document-store/port.js';
import { scheduleDocs, type LastScheduledBackupDoc } from '../../projections/backups/schedule.js';

export { BACKUP_SCHEDULE_RUNS, scheduleDocs, type LastScheduledBackupDoc } from '../../projections/backups/schedule.js';

export function lastScheduledBackup(documents: DocumentStore): Promise<LastScheduledBackupDoc | null> {
  return scheduleDocs(documents).findOne({ _id: 'last' });
}
