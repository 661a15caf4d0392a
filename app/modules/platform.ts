import { join } from 'node:path';
import type { AppModule, ModuleInstance } from '../kernel.js';
import type { AppConfig } from '../../infra/config.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { DecodeSlots, DEFAULT_DECODE_SLOTS } from '../../infra/images/decode-slots.js';
import { platformProjections } from '../../projections/platform/resources.js';
import { manifestsProjection } from '../../projections/iiif/manifests.js';
import { platformRoutes } from '../../routes/platform/index.js';
import { platformImporter } from '../../commands/platform/importer.js';
import type { ImageServices } from '../../contracts/platform/image-services.js';
import {
  mediaFileListener,
  removeOrphanMediaFiles,
  startMediaFileWorker,
} from '../../workers/platform/media-file-worker.js';

/** What the platform module runs in one runtime. */
export interface PlatformModuleInstance extends ModuleInstance {
  /** The media files' storage, render slots and cache: `npm run derivatives` and tests use them. */
  images: ImageServices;
}

/** The media files' storage, the image requests' decode slots and their cache, for one runtime. */
function createImageServices(config: AppConfig, storage: FileStorage): ImageServices {
  return {
    storage,
    slots: new DecodeSlots(DEFAULT_DECODE_SLOTS),
    cacheDir: join(config.dataDir, 'cache', 'iiif'),
  };
}

/** Host platform resources: sites, item sets, items, media (with their files and image service), site pages. */
export const platformModule: AppModule<PlatformModuleInstance> = {
  name: 'platform',
  projections: [...platformProjections, manifestsProjection],
  create(runtime) {
    const images = createImageServices(runtime.config, runtime.files.area('media'));
    // A CLI's runtime enqueues nothing: the server's projections see its events and do.
    if (runtime.runsWorkers) runtime.projections.onBatch(mediaFileListener(runtime, images));
    let sweep: Promise<void> | null = null;
    return {
      images,
      routes: async (app) => {
        // Once the server listens (never in app.inject or a CLI), in the background, as the asset library's.
        app.addHook('onListen', async () => {
          sweep ??= removeOrphanMediaFiles(runtime, images, Date.now()).then(
            (count) => {
              if (count > 0) runtime.logger.info({ count }, `removed ${count} media files no media owns`);
            },
            (error: unknown) => runtime.logger.error({ err: error }, 'orphan media files could not be removed'),
          );
        });
        await app.register(platformRoutes(images), { runtime });
      },
      startWorkers: () => startMediaFileWorker(runtime, images),
      async stop() {
        await sweep;
      },
    };
  },
  importer: platformImporter,
};
