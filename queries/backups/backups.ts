import type { BackupStatus } from '../../contracts/backups/events.js';
import { backupDocs, type BackupDoc } from '../../contracts/backups/documents.js';
import type { DocumentStore } from '../../infra/document-store/port.js';

export function findBackup(documents: DocumentStore, id: number): Promise<BackupDoc | null> {
  return backupDocs(documents).findOne({ _id: id });
}

/** Newest first: by request time, then by id (ids grow with time, and break ties under a fixed clock). */
export function listBackups(documents: DocumentStore, status?: BackupStatus): Promise<BackupDoc[]> {
  return backupDocs(documents).find(status ? { status } : {}, { sort: { created_at: -1, id: -1 } });
}
