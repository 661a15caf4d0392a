import type { RoutesOptions } from '../http/routes-plugin.js';
import type { FileStorage } from '../../infra/file-storage/port.js';

/** The routes that read or write uploaded files get the storage the module keeps them in. */
export interface AssetRoutesOptions extends RoutesOptions {
  storage: FileStorage;
}
