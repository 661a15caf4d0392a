import type { DocumentStore } from '../../infra/document-store/port.js';
import type { BackupArchive, BackupRequest } from './events.js';
import type { BackupStatus } from './fields.js';
import type { ScheduledBackupResult } from './schedule-events.js';

/*
 * The backups' read models: the records (projections/backups/backups.ts) and the last scheduled
 * run (projections/backups/schedule.ts), as queries/backups/ and the workers read them.
 */

/** One backup record as the read model keeps it: its request, then what its archive added (or why it failed). */
export interface BackupDoc extends BackupRequest {
  _id: number;
  status: BackupStatus;
  /** 0 until complete. */
  size: BackupArchive['size'];
  checksum: BackupArchive['checksum'] | null;
  event_count: BackupArchive['event_count'] | null;
  error: string | null;
  [key: string]: unknown;
}

export const BACKUPS = 'backups';

export const backupDocs = (documents: DocumentStore) => documents.collection<BackupDoc>(BACKUPS);

/** The last run of BACKUP_SCHEDULE: running until it finished, then how it ended. */
export interface LastScheduledBackupDoc extends Omit<ScheduledBackupResult, 'status'> {
  _id: 'last';
  status: ScheduledBackupResult['status'] | 'running';
  [key: string]: unknown;
}

export const BACKUP_SCHEDULE_RUNS = 'backup_schedule';

export const scheduleDocs = (documents: DocumentStore) =>
  documents.collection<LastScheduledBackupDoc>(BACKUP_SCHEDULE_RUNS);
