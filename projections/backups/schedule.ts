import type { ScheduleEvent } from '../../contracts/backups/schedule-events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { defineProjection, type Projected } from '../projection.js';

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

/** The last scheduled run, as one whole document (idempotent): what /health shows. */
export const backupScheduleProjection = defineProjection({
  name: 'backup-schedule',
  handles: ['ScheduledBackupClaimed', 'ScheduledBackupFinished'],
  collection: scheduleDocs,
  evolve(_last: LastScheduledBackupDoc | null, event: Projected<ScheduleEvent>): LastScheduledBackupDoc {
    switch (event.type) {
      case 'ScheduledBackupClaimed':
        return { _id: 'last', tick: event.data.tick, status: 'running', backup_id: null, error: null };
      case 'ScheduledBackupFinished': {
        const { tick, status, backup_id, error } = event.data;
        return { _id: 'last', tick, status, backup_id, error };
      }
    }
  },
  documentId: () => 'last' as const,
});
