import type { AppConfig } from '../config.js';
import { postgresLocation } from '../postgres-url.js';
import { LocalBackupArchives } from './local.js';
import type { BackupArchives } from './port.js';

/**
 * The archives' store the configuration picks, as the stored files' (infra/file-storage/select.ts):
 * FILES_URL's PostgreSQL database and `?schema=` (its tables made now, so an unreachable one stops
 * the start), else DATA_DIR/backups.
 */
export async function createBackupArchives(config: AppConfig): Promise<BackupArchives> {
  if (config.filesUrl) {
    // The driver and the adapter are loaded only when configured.
    const { PostgresBackupArchives, backupArchivesLocation } = await import('./postgres.js');
    const { connectionString, schema } = postgresLocation(config.filesUrl, 'FILES_URL');
    const archives = new PostgresBackupArchives(connectionString, {
      dataDir: config.dataDir,
      schema,
      location: backupArchivesLocation(connectionString, schema),
    });
    try {
      await archives.schemaReady();
    } catch (error) {
      await archives.close();
      throw error;
    }
    return archives;
  }
  return new LocalBackupArchives(config.dataDir);
}
