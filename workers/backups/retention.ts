import type { ModuleRuntime } from '../../commands/module-runtime.js';
import { deleteBackup } from '../../commands/backups/handlers.js';
import { listBackups } from '../../queries/backups/backups.js';
import { type BackupDoc } from '../../contracts/backups/documents.js';
import { removeArchive } from './remove-archive.js';

/**
 * Keeps the newest `keep` complete backups and deletes the archives and records of the older
 * complete ones. In-progress and failed records are neither counted nor removed. 0 keeps all.
 */
export async function applyRetention(
  runtime: ModuleRuntime,
  keep: number,
  userId: number | null,
): Promise<BackupDoc[]> {
  if (keep <= 0) return [];
  const complete = await listBackups(runtime.documents, 'complete');
  const expired = complete.slice(keep);
  const ctx = runtime.commandContext(userId);
  for (const record of expired) {
    await deleteBackup(ctx, record.id);
    await removeArchive(runtime, record);
  }
  return expired;
}
