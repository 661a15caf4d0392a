import { join } from 'node:path';
import type { AppConfig } from '../config.js';
import { postgresLocation } from '../postgres-url.js';
import { LocalFileAreas } from './local.js';
import type { FileAreas } from './port.js';

/** Where the embedded adapter keeps every stored file: DATA_DIR/files, which backups archive whole. */
export function filesRoot(config: AppConfig): string {
  return join(config.dataDir, 'files');
}

/** Where an adapter keeping files elsewhere makes its local copies (FileStorage.localPath): never backed up. */
export function fileCopiesDir(config: AppConfig): string {
  return join(config.dataDir, 'cache', 'files');
}

/**
 * The stored files' adapter the configuration picks: FILES_URL's PostgreSQL database
 * (postgres:// or postgresql://, `?schema=` naming their schema; its tables made now, so an
 * unreachable one stops the start), else DATA_DIR/files. Every storage of the process comes from here, by area.
 */
export async function createFileAreas(config: AppConfig): Promise<FileAreas> {
  if (config.filesUrl) {
    // The driver and the adapter are loaded only when configured.
    const { PostgresFileAreas } = await import('./postgres.js');
    const { connectionString, schema } = postgresLocation(config.filesUrl, 'FILES_URL');
    const areas = new PostgresFileAreas(connectionString, { copiesDir: fileCopiesDir(config), schema });
    try {
      await areas.schemaReady();
    } catch (error) {
      await areas.close();
      throw error;
    }
    return areas;
  }
  return new LocalFileAreas(filesRoot(config), config.dataDir);
}
