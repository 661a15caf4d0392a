import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { BackupDoc } from '../../contracts/backups/documents.js';
import { LocalBackupArchives } from '../../infra/backup-archives/local.js';
import type { BackupArchives } from '../../infra/backup-archives/port.js';

/**
 * The store holding a record's archive: the configured one when the record was put there
 * (`o:storage`); DATA_DIR/backups for a `local` record made before FILES_URL was set; null for
 * a `postgresql` record on a server without FILES_URL, which cannot reach it.
 */
export function archivesOf(runtime: ModuleRuntime, record: Pick<BackupDoc, 'storage'>): BackupArchives | null {
  if (record.storage === runtime.backupArchives.kind) return runtime.backupArchives;
  if (record.storage === 'local') return new LocalBackupArchives(runtime.config.dataDir);
  return null;
}

/** The record's `o:path`: where its store keeps it (the recorded location when this server has no such store). */
export function archiveLocation(runtime: ModuleRuntime, record: BackupDoc): string {
  return archivesOf(runtime, record)?.location(record.filename) ?? record.path;
}
