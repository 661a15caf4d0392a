import { join } from 'node:path';
import type { AppConfig } from '../config.js';
import { LocalFileStorage } from './local.js';
import type { FileStorage } from './port.js';

/** Where every stored file lives: DATA_DIR/files, which backups archive whole. */
export function filesRoot(config: AppConfig): string {
  return join(config.dataDir, 'files');
}

/** The host platform's media files: originals, their derivatives and tiled pyramids. */
export function mediaFileStorage(config: AppConfig): FileStorage {
  return new LocalFileStorage(filesRoot(config), 'media');
}
