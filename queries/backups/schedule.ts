import type { DocumentStore } from '../../infra/document-store/port.js';
import { scheduleDocs, type LastScheduledBackupDoc } from '../../contracts/backups/documents.js';

export function lastScheduledBackup(documents: DocumentStore): Promise<LastScheduledBackupDoc | null> {
  return scheduleDocs(documents).findOne({ _id: 'last' });
}
