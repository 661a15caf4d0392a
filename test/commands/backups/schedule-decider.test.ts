import t from 'tap';
import { scheduleDecider } from '../../../commands/backups/schedule-decider.js';
import { type ScheduleEvent } from '../../../contracts/backups/schedule-events.js';
import { ConflictError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const spec = deciderSpec(scheduleDecider);
const MON = '2026-03-02T03:00:00.000Z';
const TUE = '2026-03-03T03:00:00.000Z';
const claimed = (tick: string): ScheduleEvent => ({ type: 'ScheduledBackupClaimed', data: { tick } });
const finished = (tick: string): ScheduleEvent => ({
  type: 'ScheduledBackupFinished',
  data: { tick, backup_id: 4, status: 'complete', error: null },
});

t.test('a run is claimed once; never one at or before the latest claimed', async (t) => {
  spec
    .given([])
    .when({ type: 'ClaimScheduledBackup', data: { tick: MON } })
    .then(t, [claimed(MON)]);
  spec
    .given([claimed(MON), finished(MON)])
    .when({ type: 'ClaimScheduledBackup', data: { tick: TUE } })
    .then(t, [claimed(TUE)]);
  spec
    .given([claimed(MON)])
    .when({ type: 'ClaimScheduledBackup', data: { tick: MON } })
    .thenThrows(t, ConflictError, 'the same run, delivered again');
  spec
    .given([claimed(TUE)])
    .when({ type: 'ClaimScheduledBackup', data: { tick: MON } })
    .thenThrows(t, ConflictError, 'an older run, missed while down');
});

t.test('only the claimed run finishes, once', async (t) => {
  const result = { tick: MON, backup_id: 4, status: 'complete' as const, error: null };
  spec
    .given([claimed(MON)])
    .when({ type: 'FinishScheduledBackup', data: result })
    .then(t, [finished(MON)]);
  spec
    .given([claimed(MON), finished(MON)])
    .when({ type: 'FinishScheduledBackup', data: result })
    .thenThrows(t, ConflictError, 'twice');
  spec
    .given([claimed(TUE)])
    .when({ type: 'FinishScheduledBackup', data: result })
    .thenThrows(t, ConflictError, 'another run');
  spec.given([]).when({ type: 'FinishScheduledBackup', data: result }).thenThrows(t, ConflictError, 'never claimed');
});
