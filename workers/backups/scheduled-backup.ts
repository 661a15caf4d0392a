import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { BackupIncludes } from '../../contracts/backups/events.js';
import { includesFrom } from '../../commands/backups/schemas.js';
import type { ScheduledBackupResult } from '../../contracts/backups/schedule-events.js';
import { claimScheduledBackup, finishScheduledBackup } from '../../commands/backups/schedule-handlers.js';
import { AppError, ConflictError } from '../../infra/errors.js';
import type { JobContext } from '../../infra/job-queue/port.js';
import { makeBackup, queuedBackupJob } from './make-backup.js';

/** The queue the schedule adds its runs to, and the one scheduler on it. */
export const BACKUP_SCHEDULE_QUEUE = 'backup-schedule';
export const BACKUP_SCHEDULER_ID = 'backup-schedule';

/** A scheduled backup includes every part: what an empty body asks of POST /api/backups. */
const EVERY_PART: BackupIncludes = includesFrom({});

export type ScheduledRunOutcome = ScheduledBackupResult | { tick: string; status: 'taken elsewhere' };

/**
 * One run of BACKUP_SCHEDULE: claimed in the log first (only one process makes each run's
 * backup), then the backup POST /api/backups makes with every part, credited to nobody, through
 * the backup queue like the API's, and retention after a complete one; how it ended is recorded
 * for /health.
 */
export async function runScheduledBackup(runtime: ModuleRuntime, job: JobContext): Promise<ScheduledRunOutcome> {
  const tick = (job.scheduledFor ?? runtime.clock.now()).toISOString();
  const ctx = runtime.commandContext(null, `schedule-${tick}`);
  try {
    await claimScheduledBackup(ctx, tick);
  } catch (error) {
    if (error instanceof ConflictError) return { tick, status: 'taken elsewhere' };
    throw error;
  }
  let result: ScheduledBackupResult;
  try {
    const made = await makeBackup(
      runtime,
      { userId: null, requestId: ctx.requestId, includes: EVERY_PART, logger: runtime.logger },
      queuedBackupJob(runtime),
    );
    const complete = made.outcome.status === 'complete' && made.record?.status === 'complete';
    result = {
      tick,
      backup_id: made.id,
      status: complete ? 'complete' : 'failed',
      error: complete ? null : (made.outcome.error ?? made.record?.error ?? 'unknown reason.'),
    };
  } catch (error) {
    runtime.logger.error({ err: error, tick }, 'the scheduled backup could not be made');
    // Our own errors say what happened without paths or driver text; anything else is summed up.
    const message = error instanceof AppError ? error.message : 'The scheduled backup could not be started.';
    result = { tick, backup_id: null, status: 'failed', error: message };
  }
  await finishScheduledBackup(ctx, result);
  if (result.status === 'failed')
    runtime.logger.error({ ...result }, `scheduled backup of ${tick} failed: ${result.error ?? ''}`);
  else runtime.logger.info({ ...result }, `scheduled backup of ${tick} complete`);
  return result;
}
