import type { AppModule } from '../kernel.js';
import { assetProjections } from '../../projections/assets/index.js';
import { assetLibraryRoutes } from '../../routes/assets/index.js';
import { removeOrphanAssetFiles } from '../../workers/assets/orphan-files.js';

/** The asset library: folders, uploaded assets, their files and usage records. */
export const assetsModule: AppModule = {
  name: 'assets',
  projections: assetProjections,
  create(runtime) {
    const storage = runtime.files.area('assets');
    let sweep: Promise<void> | null = null;
    return {
      routes: async (app) => {
        // Once the server listens (never in app.inject or a CLI), in the background: a large
        // library's listing must not hold the start, and requests are served meanwhile.
        app.addHook('onListen', async () => {
          sweep ??= removeOrphanAssetFiles(runtime, storage, Date.now()).then(
            (count) => {
              if (count > 0) runtime.logger.info({ count }, `removed ${count} asset files no asset record owns`);
            },
            (error: unknown) => runtime.logger.error({ err: error }, 'orphan asset files could not be removed'),
          );
        });
        await app.register(assetLibraryRoutes, { runtime, storage });
      },
      async stop() {
        await sweep;
      },
    };
  },
};
