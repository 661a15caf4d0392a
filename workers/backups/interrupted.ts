import type { ModuleRuntime } from '../../commands/module-runtime.js';
import { failBackup } from '../../commands/backups/handlers.js';
import { listBackups } from '../../queries/backups/backups.js';
import { removeArchive } from './remove-archive.js';

export const INTERRUPTED_MESSAGE = 'The server stopped while this backup was being written.';

/**
 * With the in-process queue, a backup still in progress when the process starts can never
 * finish: its job died with the previous process. It is recorded as failed and its partial
 * archive removed, so the list does not show it running forever.
 */
export async function failInterruptedBackups(runtime: ModuleRuntime): Promise<void> {
  await runtime.projections.catchUp();
  for (const record of await listBackups(runtime.documents, 'in_progress')) {
    try {
      await failBackup(runtime.commandContext(null), record.id, INTERRUPTED_MESSAGE);
      await removeArchive(runtime, record);
    } catch (error) {
      runtime.logger.warn({ err: error, backupId: record.id }, 'could not mark an interrupted backup as failed');
    }
  }
}
