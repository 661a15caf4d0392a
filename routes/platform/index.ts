import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { contextUrl } from '../json-ld.js';
import { itemRoutes, itemSetRoutes, mediaRoutes, sitePageRoutes, siteRoutes } from './definitions.js';
import { resourceRoutes } from './resource-routes.js';

const API_CONTEXT_SCHEMA = {
  tags: ['platform'],
  summary: 'The JSON-LD context',
  description:
    'The `@context` every JSON-LD representation names: the `o:` and `xsd:` prefixes and the `@base` of `@id`s.',
};
/** Documentation only: the handler's object is serialised as it is, as it always was. */
const API_CONTEXT = Type.Object(
  {
    '@context': Type.Object({
      o: Type.Literal('http://omeka.org/s/vocabs/o#'),
      xsd: Type.Literal('http://www.w3.org/2001/XMLSchema#'),
      '@base': Type.String({ description: "This context's own URL." }),
    }),
  },
  { description: 'The context.' },
);

/** The host platform API: /api/sites, /api/item_sets, /api/items, /api/media, /api/site_pages. */
export const platformRoutes: RoutesPlugin = async (app, { runtime }) => {
  app.get(
    '/api-context',
    { schema: API_CONTEXT_SCHEMA, config: { documentedResponses: { 200: API_CONTEXT } } },
    async () => ({
      '@context': {
        o: 'http://omeka.org/s/vocabs/o#',
        xsd: 'http://www.w3.org/2001/XMLSchema#',
        '@base': contextUrl(runtime.config.baseUrl),
      },
    }),
  );
  await app.register(resourceRoutes(siteRoutes), { runtime, prefix: `/api/${siteRoutes.path}` });
  await app.register(resourceRoutes(itemSetRoutes), { runtime, prefix: `/api/${itemSetRoutes.path}` });
  await app.register(resourceRoutes(itemRoutes), { runtime, prefix: `/api/${itemRoutes.path}` });
  await app.register(resourceRoutes(mediaRoutes), { runtime, prefix: `/api/${mediaRoutes.path}` });
  await app.register(resourceRoutes(sitePageRoutes), { runtime, prefix: `/api/${sitePageRoutes.path}` });
};
