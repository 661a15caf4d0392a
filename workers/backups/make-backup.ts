import type { ModuleRuntime } from '../../commands/module-runtime.js';
import { failBackup, requestBackup } from '../../commands/backups/handlers.js';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { findBackup } from '../../queries/backups/backups.js';
import type { BackupJobResult, BackupMade, BackupOrder } from '../../contracts/backups/backup-service.js';
import { BACKUP_QUEUE, type BackupJobData } from './backup-job.js';
import { backupStartingPoint } from './read-side-snapshot.js';
import { applyRetention } from './retention.js';

/**
 * Runs the archive job of a recorded request: through the job queue (the route, the schedule),
 * or in this very process (the command line, which runs no workers).
 */
export type BackupJobRunner = (data: BackupJobData) => Promise<BackupJobResult>;

/** As long as a backup through the API or the schedule may take: it bounds the wait for the job, not the job. */
const BACKUP_TIMEOUT_MS = 2 * 60 * 60 * 1000;

/** The archive job through the backup queue, waited for: how POST /api/backups and the schedule run it. */
export function queuedBackupJob(runtime: ModuleRuntime): BackupJobRunner {
  return (data) =>
    runtime.jobs.addAndWait<BackupJobData, BackupJobResult>(BACKUP_QUEUE, data, {
      jobId: `backup-${data.backupId}`,
      timeoutMs: BACKUP_TIMEOUT_MS,
    });
}

/**
 * One backup, the same from every entry point (POST /api/backups, `npm run backup`, the
 * schedule): the starting point (read-side snapshots, then the log's end), the request recorded
 * as in progress, the archive job, and retention after a complete one. A job that did not finish
 * leaves the record failed with the reason; a job queue that is away is rethrown (the route's 503).
 */
export async function makeBackup(
  runtime: ModuleRuntime,
  order: BackupOrder,
  runJob: BackupJobRunner,
): Promise<BackupMade> {
  const ctx = runtime.commandContext(order.userId, order.requestId);
  // A queue that is away refuses the backup (503, within seconds) before anything is recorded:
  // a request that never became a job leaves no record.
  await runtime.jobs.ping?.();
  const start = await backupStartingPoint(runtime.config, runtime.eventStore, order.includes.include_db, order.logger);
  let id: number;
  try {
    id = await requestBackup(ctx, { includes: order.includes, archives: runtime.backupArchives });
  } catch (error) {
    await start.discard();
    throw error;
  }
  let outcome: BackupJobResult;
  try {
    outcome = await runJob({ backupId: id, upTo: start.upTo, readSide: start.readSide });
  } catch (error) {
    order.logger.error({ err: error, backupId: id }, 'backup job did not finish');
    if (error instanceof DependencyUnavailableError) {
      // The job queue is away: the record says why, and the caller is told to try again later.
      await failBackup(ctx, id, `The job queue (${error.dependency}) is unavailable.`).catch(() => undefined);
      throw error;
    }
    const reason = 'The backup job did not finish.';
    outcome = { status: 'failed', error: reason };
    await failBackup(ctx, id, reason).catch(() => undefined);
  } finally {
    await start.discard();
  }
  // The worker may run in another process: wait until this one's read models have its events.
  await runtime.projections.catchUp();
  const record = await findBackup(runtime.documents, id);
  const complete = outcome.status === 'complete' && record?.status === 'complete';
  const expired = complete ? await applyRetention(runtime, runtime.config.backupRetention, order.userId) : [];
  return { id, outcome, record, expired };
}
