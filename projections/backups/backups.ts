import type { BackupEvent } from '../../contracts/backups/events.js';
import { backupDocs, type BackupDoc } from '../../contracts/backups/documents.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';

/** The backup records: whole documents on request, absolute values after (idempotent). */
export const backupsProjection = defineProjection({
  name: 'backups',
  handles: ['BackupRequested', 'BackupCompleted', 'BackupFailed', 'BackupDeleted', 'BackupArchiveNotRestored'],
  collection: backupDocs,
  evolve(backup: BackupDoc | null, event: Projected<BackupEvent>): BackupDoc | null {
    switch (event.type) {
      case 'BackupRequested':
        return copyWith(event.data, {
          _id: event.data.id,
          status: 'in_progress' as const,
          size: 0,
          checksum: null,
          event_count: null,
          error: null,
        });
      case 'BackupCompleted': {
        const d = event.data;
        return (
          backup &&
          copyWith(backup, {
            status: 'complete' as const,
            size: d.size,
            checksum: d.checksum,
            event_count: d.event_count,
          })
        );
      }
      case 'BackupFailed':
        return backup && copyWith(backup, { status: 'failed' as const, error: event.data.error });
      case 'BackupDeleted':
      case 'BackupArchiveNotRestored':
        return null;
      default: {
        const _exhaustive: never = event;
        return backup;
      }
    }
  },
  documentId: (event) => event.data.id,
});
