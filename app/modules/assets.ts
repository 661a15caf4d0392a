import type { AppModule } from '../kernel.js';
import { assetProjections } from '../../projections/assets/index.js';
import { assetLibraryRoutes } from '../../routes/assets/index.js';
import { LocalFileStorage } from '../../infra/file-storage/local.js';
import { filesDir } from '../runtime.js';

/** The asset library: folders, uploaded assets, their files and usage records. */
export const assetsModule: AppModule = {
  name: 'assets',
  projections: assetProjections,
  create(runtime) {
    const storage = new LocalFileStorage(filesDir(runtime.config), 'assets');
    return {
      routes: async (app) => {
        await app.register(assetLibraryRoutes, { runtime, storage });
      },
    };
  },
};
