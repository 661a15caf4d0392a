import type { ModuleRuntime } from '../../commands/module-runtime.js';
import { completeBackup, failBackup } from '../../commands/backups/handlers.js';
import { findBackup } from '../../queries/backups/backups.js';
import type { BackupJobResult } from '../../contracts/backups/backup-service.js';
import type { ApiSource } from './api-export.js';
import type { ArchiveProgress } from './archive-progress.js';
import { createArchive } from './create-archive.js';
import { backupFailureMessage } from './failure-message.js';
import { archivesOf } from './archive-store.js';
import type { ReadSideSnapshot } from './read-side-snapshot.js';
import { removeArchive } from './remove-archive.js';

export const BACKUP_QUEUE = 'backups';

export interface BackupJobData {
  backupId: number;
  /** Log position when the backup was requested: the archive holds the log up to there. */
  upTo: number;
  /** The read side as it was when requested, at or behind upTo (requestBackupSnapshots); absent: the log alone. */
  readSide?: ReadSideSnapshot[];
}

/**
 * Writes the archive of a requested backup and records the outcome as events. A failure is a
 * result, not an exception: the record is kept as failed with a message people can act on.
 */
export async function runBackupJob(
  runtime: ModuleRuntime,
  apiSource: ApiSource,
  data: BackupJobData,
  progress?: ArchiveProgress,
): Promise<BackupJobResult> {
  // A worker in another process may not have applied the request yet.
  let record = await findBackup(runtime.documents, data.backupId);
  if (!record) {
    await runtime.projections.catchUp();
    record = await findBackup(runtime.documents, data.backupId);
  }
  if (!record) return { status: 'failed', error: 'The backup record no longer exists.' };
  if (record.status === 'complete') return { status: 'complete' };
  if (record.status === 'failed') return { status: 'failed', error: record.error ?? undefined };
  const ctx = runtime.commandContext(record.created_by);
  const app = apiSource.app;
  if (record.includes.include_api && !app)
    runtime.logger.warn({ backupId: record.id }, 'no HTTP app in this process: the api part stays empty');
  try {
    const archives = archivesOf(runtime, record);
    if (!archives)
      throw new Error(`The backup is to be stored in ${record.storage}, which this server is not configured for.`);
    const staged = archives.stagingFile(record.filename);
    const result = await createArchive({
      file: staged,
      dataDir: runtime.config.dataDir,
      includes: record.includes,
      backupId: record.id,
      createdAt: new Date(record.created_at),
      eventStore: runtime.eventStore,
      upTo: data.upTo,
      readSide: data.readSide,
      api: app ? { app, baseUrl: runtime.config.baseUrl, userId: record.created_by } : null,
      progress,
      files: runtime.files,
    });
    // Written and checked on this machine's disk; then where every server finds it.
    await archives.put(record.filename, {
      path: staged,
      size: result.size,
      sha256: result.checksum.replace(/^sha256:/, ''),
    });
    try {
      await completeBackup(ctx, record.id, {
        size: result.size,
        checksum: result.checksum,
        event_count: result.eventCount,
      });
    } catch (error) {
      // Deleted (or given up on) while the archive was being written: the archive has no record.
      await removeArchive(runtime, record);
      throw error;
    }
    return { status: 'complete' };
  } catch (error) {
    runtime.logger.error({ err: error, backupId: record.id }, 'backup failed');
    // Nothing half written stays: the staging file, or an archive put before the record refused it.
    await removeArchive(runtime, record);
    const message = backupFailureMessage(error);
    await failBackup(ctx, record.id, message).catch((failure: unknown) => {
      runtime.logger.warn({ err: failure, backupId: record.id }, 'the failure could not be recorded');
    });
    return { status: 'failed', error: message };
  }
}
