import type { BackupEvent } from '../../commands/backups/events.js';
import { BACKUP_EVENT_TYPES } from '../../commands/backups/events.js';
import { backupDocs } from '../../queries/backups/backups.js';
import { defineProjection } from '../projection.js';

/** The backup records: whole documents on request, absolute values after (idempotent). */
export const backupsProjection = defineProjection({
  name: 'backups',
  handles: BACKUP_EVENT_TYPES,
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as BackupEvent;
    const docs = backupDocs(documents);
    switch (event.type) {
      case 'BackupRequested': {
        const d = event.data;
        await docs.put({
          _id: d.id,
          id: d.id,
          filename: d.filename,
          path: d.path,
          storage: d.storage,
          size: 0,
          status: 'in_progress',
          checksum: null,
          error: null,
          event_count: null,
          created_by: d.created_by,
          created_at: d.created_at,
          includes: d.includes,
          module_version: d.module_version,
        });
        return;
      }
      case 'BackupCompleted': {
        const d = event.data;
        await docs.updateOne({ _id: d.id }, { $set: { status: 'complete', size: d.size, checksum: d.checksum, event_count: d.event_count } });
        return;
      }
      case 'BackupFailed':
        await docs.updateOne({ _id: event.data.id }, { $set: { status: 'failed', error: event.data.error } });
        return;
      case 'BackupDeleted':
      case 'BackupArchiveNotRestored':
        await docs.deleteOne({ _id: event.data.id });
        return;
      default: {
        const _exhaustive: never = event;
      }
    }
  },
});
