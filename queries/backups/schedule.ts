import type { DocumentStore } from '../../infra/document-store/port.js';

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

export const scheduleDocs = (documents: DocumentStore) => documents.collection<LastScheduledBackupDoc>(BACKUP_SCHEDULE_RUNS);

export function lastScheduledBackup(documents: DocumentStore): Promise<LastScheduledBackupDoc | null> {
  return scheduleDocs(documents).findOne({ _id: 'last' });
}
