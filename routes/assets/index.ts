import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../app/runtime.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { assetRoutes } from './asset-routes.js';
import { fileRoutes } from './file-routes.js';
import { folderRoutes } from './folder-routes.js';
import { uploadRoutes } from './upload-routes.js';
import { usageRoutes } from './usage-routes.js';

/**
 * The asset library API (/api/asset-picker/) and the public file route. Multipart parsing is
 * registered inside this plugin only, so other surfaces keep refusing multipart bodies.
 */
export function assetLibraryRoutes(storage: FileStorage) {
  return async (app: FastifyInstance, runtime: Runtime): Promise<void> => {
    await app.register(async (scope) => {
      await scope.register(multipart, {
        limits: { fileSize: runtime.config.maxUploadBytes, files: 5, fields: 20, fieldSize: 64 * 1024, parts: 30 },
        throwFileSizeLimit: true,
      });
      await folderRoutes(scope, runtime);
      await assetRoutes(scope, runtime, storage);
      await uploadRoutes(scope, runtime, storage);
      await usageRoutes(scope, runtime);
      await fileRoutes(scope, runtime, storage);
    });
  };
}
