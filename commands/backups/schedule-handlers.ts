import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { BACKUP_SCHEDULE_STREAM, scheduleDecider } from './schedule-decider.js';
import { type ScheduledBackupResult } from '../../contracts/backups/schedule-events.js';

/** Takes a run of the schedule for this process; a ConflictError when another took it (or a later one). */
export async function claimScheduledBackup(ctx: CommandContext, tick: string): Promise<void> {
  await handleCommand(ctx, {
    stream: BACKUP_SCHEDULE_STREAM,
    decider: scheduleDecider,
    command: { type: 'ClaimScheduledBackup', data: { tick } },
  });
}

/** Records how the claimed run ended (what /health shows as the last scheduled result). */
export async function finishScheduledBackup(ctx: CommandContext, result: ScheduledBackupResult): Promise<void> {
  await handleCommand(ctx, {
    stream: BACKUP_SCHEDULE_STREAM,
    decider: scheduleDecider,
    command: { type: 'FinishScheduledBackup', data: result },
  });
}
