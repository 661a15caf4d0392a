import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { BackupDoc } from '../../contracts/backups/documents.js';
import { archivesOf } from './archive-store.js';

/**
 * Removes a record's archive from its store (DATA_DIR/backups with its checksum file, or the
 * shared database, from any server), and any staging file of it here. Called after the record's
 * deletion is recorded: an archive left behind by a failure here is logged, while a record
 * pointing at a missing archive would mislead.
 */
export async function removeArchive(runtime: ModuleRuntime, record: BackupDoc): Promise<void> {
  const archives = archivesOf(runtime, record);
  if (!archives) {
    runtime.logger.error(
      { backupId: record.id, storage: record.storage },
      'the backup archive is in a store this server is not configured for (FILES_URL): it is left there',
    );
    return;
  }
  try {
    await archives.remove(record.filename);
  } catch (error) {
    runtime.logger.error({ err: error, backupId: record.id }, 'could not remove a backup archive');
  }
}
