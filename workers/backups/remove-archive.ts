import { rm } from 'node:fs/promises';
import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { BackupDoc } from '../../contracts/backups/documents.js';
import { archiveFileFor, checksumFileFor } from '../../contracts/backups/paths.js';

/**
 * Removes a record's archive and its checksum file from this installation's backups folder.
 * Called after the record's deletion is recorded: a file left behind by a failure here is
 * logged, while a record pointing at a missing archive would mislead.
 */
export async function removeArchive(runtime: ModuleRuntime, record: BackupDoc): Promise<void> {
  const file = archiveFileFor(runtime.config.dataDir, record.filename);
  for (const path of [file, checksumFileFor(file), `${file}.partial`]) {
    try {
      await rm(path, { force: true });
    } catch (error) {
      runtime.logger.error({ err: error, backupId: record.id }, 'could not remove a backup file');
    }
  }
}
