import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../app/runtime.js';
import { contextUrl } from '../json-ld.js';
import { itemRoutes, itemSetRoutes, mediaRoutes, sitePageRoutes, siteRoutes } from './definitions.js';
import { resourceRoutes } from './resource-routes.js';

/** The host platform API: /api/sites, /api/item_sets, /api/items, /api/media, /api/site_pages. */
export async function platformRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  app.get('/api-context', { schema: { hide: true } }, async () => ({
    '@context': {
      o: 'http://omeka.org/s/vocabs/o#',
      xsd: 'http://www.w3.org/2001/XMLSchema#',
      '@base': contextUrl(runtime.config.baseUrl),
    },
  }));
  await resourceRoutes(app, runtime, siteRoutes);
  await resourceRoutes(app, runtime, itemSetRoutes);
  await resourceRoutes(app, runtime, itemRoutes);
  await resourceRoutes(app, runtime, mediaRoutes);
  await resourceRoutes(app, runtime, sitePageRoutes);
}
