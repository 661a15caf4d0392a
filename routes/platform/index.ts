import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../commands/command-context.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { contextUrl } from '../json-ld.js';
import { itemRoutes, itemSetRoutes, mediaRoutes, sitePageRoutes, siteRoutes } from './definitions.js';
import { resourceRoutes } from './resource-routes.js';
import { createUploadedMedia, MEDIA_UPLOAD_FORM } from './media-upload.js';
import { mediaFileRoutes } from './media-file-routes.js';
import { iiifImageRoutes } from '../iiif/image-routes.js';
import { iiifPresentationRoutes } from '../iiif/presentation-routes.js';
import { iiifDiscoveryRoutes } from '../iiif/discovery-routes.js';
import { oaiPmhRoutes } from '../oai/oai-pmh.js';
import type { ImageServices } from '../../contracts/platform/image-services.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';

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

/**
 * The host platform API: /api/sites, /api/item_sets, /api/items, /api/media (JSON, or a form
 * with the file), /api/site_pages; the media's files (/files/...) and their IIIF image service.
 */
export const platformRoutes =
  (images: ImageServices): RoutesPlugin =>
  async (app, { runtime }) => {
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
    const limits = { fieldSize: JSON_BODY_LIMIT, fileSize: runtime.config.maxUploadBytes };
    const upload = {
      form: MEDIA_UPLOAD_FORM,
      limits,
      create: (request: FastifyRequest, ctx: CommandContext) =>
        createUploadedMedia(request, ctx, { storage: images.storage, maxBytes: limits.fileSize }),
    };
    await app.register(resourceRoutes(mediaRoutes, upload), { runtime, prefix: `/api/${mediaRoutes.path}` });
    await app.register(resourceRoutes(sitePageRoutes), { runtime, prefix: `/api/${sitePageRoutes.path}` });
    await app.register(mediaFileRoutes(images.storage), { runtime });
    await app.register(iiifImageRoutes(images), { runtime });
    await app.register(iiifPresentationRoutes, { runtime });
    await app.register(iiifDiscoveryRoutes, { runtime });
    await app.register(oaiPmhRoutes, { runtime });
  };
