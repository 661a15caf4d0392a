import type { BackupIncludes } from '../../commands/backups/events.js';
import type { BackupStatus } from '../../commands/backups/decider.js';
import type { DocumentStore } from '../../infra/document-store/port.js';

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

export function findBackup(documents: DocumentStore, id: number): Promise<BackupDoc | null> {
  return backupDocs(documents).findOne({ _id: id });
}

/** Newest first: by request time, then by id (ids grow with time, and break ties under a fixed clock). */
export function listBackups(documents: DocumentStore, status?: BackupStatus): Promise<BackupDoc[]> {
  return backupDocs(documents).find(status ? { status } : {}, { sort: { created_at: -1, id: -1 } });
}
