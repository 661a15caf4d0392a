import type { ScheduleEvent } from '../../contracts/backups/schedule-events.js';
import { scheduleDocs, type LastScheduledBackupDoc } from '../../contracts/backups/documents.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';

/** The last scheduled run, as one whole document (idempotent): what /health shows. */
export const backupScheduleProjection = defineProjection({
  name: 'backup-schedule',
  handles: ['ScheduledBackupClaimed', 'ScheduledBackupFinished'],
  collection: scheduleDocs,
  evolve(_last: LastScheduledBackupDoc | null, event: Projected<ScheduleEvent>): LastScheduledBackupDoc {
    switch (event.type) {
      case 'ScheduledBackupClaimed':
        return { _id: 'last', tick: event.data.tick, status: 'running', backup_id: null, error: null };
      case 'ScheduledBackupFinished':
        return copyWith(event.data, { _id: 'last' as const });
    }
  },
  documentId: () => 'last' as const,
});
