import type { AppModule } from '../kernel.js';
import { assetProjections } from '../../projections/assets/index.js';
import { assetLibraryRoutes } from '../../routes/assets/index.js';
import { LocalFileStorage } from '../../infra/file-storage/local.js';
import { filesDir } from '../runtime.js';

/** The asset library: folders, uploaded assets, their files and usage records. */
export const assetsModule: AppModule = {
  name: 'assets',
  projections: assetProjections,
  routes: async (app, { runtime }) => {
    await app.register(assetLibraryRoutes, { runtime, storage: new LocalFileStorage(filesDir(runtime.config), 'assets') });
  },
};
