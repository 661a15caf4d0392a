import multipart from '@fastify/multipart';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import type { AssetRoutesOptions } from './options.js';
import { assetRoutes } from './asset-routes.js';
import { fileRoutes } from './file-routes.js';
import { folderRoutes } from './folder-routes.js';
import { uploadRoutes } from './upload-routes.js';
import { usageRoutes } from './usage-routes.js';

const ASSETS = '/api/asset-picker/assets';

/**
 * The asset library API (/api/asset-picker/) and the public file route. Multipart parsing is
 * registered inside this plugin only, so other surfaces keep refusing multipart bodies.
 */
export const assetLibraryRoutes: RoutesPlugin<AssetRoutesOptions> = async (app, { runtime, storage }) => {
  await app.register(multipart, {
    limits: { fileSize: runtime.config.maxUploadBytes, files: 5, fields: 20, fieldSize: 64 * 1024, parts: 30 },
    throwFileSizeLimit: true,
  });
  await app.register(folderRoutes, { runtime, prefix: '/api/asset-picker/folders' });
  await app.register(assetRoutes, { runtime, storage, prefix: ASSETS });
  await app.register(uploadRoutes, { runtime, storage, prefix: ASSETS });
  await app.register(usageRoutes, { runtime, prefix: ASSETS });
  await app.register(fileRoutes, { runtime, storage, prefix: '/asset-files' });
};
