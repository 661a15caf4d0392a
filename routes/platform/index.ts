import type { RoutesPlugin } from '../../app/kernel.js';
import { contextUrl } from '../json-ld.js';
import { itemRoutes, itemSetRoutes, mediaRoutes, sitePageRoutes, siteRoutes } from './definitions.js';
import { resourceRoutes } from './resource-routes.js';

/** The host platform API: /api/sites, /api/item_sets, /api/items, /api/media, /api/site_pages. */
export const platformRoutes: RoutesPlugin = async (app, { runtime }) => {
  app.get('/api-context', { schema: { hide: true } }, async () => ({
    '@context': {
      o: 'http://omeka.org/s/vocabs/o#',
      xsd: 'http://www.w3.org/2001/XMLSchema#',
      '@base': contextUrl(runtime.config.baseUrl),
    },
  }));
  await app.register(resourceRoutes(siteRoutes), { runtime, prefix: `/api/${siteRoutes.path}` });
  await app.register(resourceRoutes(itemSetRoutes), { runtime, prefix: `/api/${itemSetRoutes.path}` });
  await app.register(resourceRoutes(itemRoutes), { runtime, prefix: `/api/${itemRoutes.path}` });
  await app.register(resourceRoutes(mediaRoutes), { runtime, prefix: `/api/${mediaRoutes.path}` });
  await app.register(resourceRoutes(sitePageRoutes), { runtime, prefix: `/api/${sitePageRoutes.path}` });
};
