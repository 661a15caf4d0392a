import { SCHEDULE_EVENT_TYPES, type ScheduleEvent } from '../../commands/backups/schedule-decider.js';
import { scheduleDocs } from '../../queries/backups/schedule.js';
import { defineProjection } from '../projection.js';

/** The last scheduled run, as one whole document (idempotent): what /health shows. */
export const backupScheduleProjection = defineProjection({
  name: 'backup-schedule',
  handles: SCHEDULE_EVENT_TYPES,
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as ScheduleEvent;
    const docs = scheduleDocs(documents);
    switch (event.type) {
      case 'ScheduledBackupClaimed':
        await docs.put({ _id: 'last', tick: event.data.tick, status: 'running', backup_id: null, error: null });
        return;
      case 'ScheduledBackupFinished': {
        const { tick, status, backup_id, error } = event.data;
        await docs.put({ _id: 'last', tick, status, backup_id, error });
        return;
      }
      default: {
        const _exhaustive: never = event;
      }
    }
  },
});
