import type { DocumentStore } from '../../infra/document-store/port.js';
import type { BackupIncludes, BackupStatus } from './events.js';

/*
 * The backups' read models: the records (projections/backups/backups.ts) and the last scheduled
 * run (projections/backups/schedule.ts), as queries/backups/ and the workers read them.
 */

/** One backup record as the read model keeps it. */
export interface BackupDoc {
  _id: number;
  id: number;
  filename: string;
  path: string;
  storage: 'local';
  size: number;
  status: BackupStatus;
  checksum: string | null;
  error: string | null;
  event_count: number | null;
  created_by: number | null;
  created_at: string;
  includes: BackupIncludes;
  module_version: string;
  [key: string]: unknown;
}

export const BACKUPS = 'backups';

export const backupDocs = (documents: DocumentStore) => documents.collection<BackupDoc>(BACKUPS);

/** The last run of BACKUP_SCHEDULE: running until it finished, then how it ended. */
export interface LastScheduledBackupDoc {
  _id: 'last';
  tick: string;
  status: 'running' | 'complete' | 'failed';
  backup_id: number | null;
  error: string | null;
  [key: string]: unknown;
}

export const BACKUP_SCHEDULE_RUNS = 'backup_schedule';

export const scheduleDocs = (documents: DocumentStore) =>
  documents.collection<LastScheduledBackupDoc>(BACKUP_SCHEDULE_RUNS);
