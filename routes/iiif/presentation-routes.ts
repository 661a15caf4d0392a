import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isEditorOrAbove } from '../../contracts/users/roles.js';
import { NotFoundError } from '../../infra/errors.js';
import type { CanvasEntry } from '../../contracts/iiif/documents.js';
import {
  collectionName,
  manifestRevision,
  visibleManifest,
  visibleSetCollection,
  visibleSets,
  type SetRef,
  type VisibleManifest,
} from '../../queries/iiif/manifests.js';
import { KEY_OR_SESSION } from '../http/auth.js';
import { noneMatch, parseTagList } from '../http/conditional/entity-tag.js';
import { answerIn, emptyAnswer } from '../http/documented-responses.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { resourceUrl } from '../json-ld.js';
import { imageServiceUrl, thumbnailUrl } from '../platform/media-file-urls.js';

/**
 * The IIIF Presentation API 3.0 (CONTRACT.md section 9): a Manifest for every item with an image
 * the caller may see, a Collection per item set, and one of every set. Read from the manifests'
 * read model (projections/iiif/manifests.ts): one document per manifest, however many canvases.
 * Each answer names what it was made from in a strong ETag, checked before anything is built.
 */

export const PRESENTATION_CONTEXT = 'http://iiif.io/api/presentation/3/context.json';
const JSON_LD = `application/ld+json;profile="${PRESENTATION_CONTEXT}"`;
const PUBLIC_CACHE = 'public, max-age=0, must-revalidate';
const PRIVATE_CACHE = 'private, no-cache';

const header = (description: string) => Type.String({ description });
const HEADERS = {
  ETag: header('Strong: what the document was made from.'),
  'Cache-Control': header(`\`${PUBLIC_CACHE}\` anonymously, \`${PRIVATE_CACHE}\` with credentials.`),
  'Access-Control-Allow-Origin': header('`*`.'),
  Vary: header('`Accept, Cookie`.'),
};
const IIIF_DOCUMENT = Type.Object(
  {
    '@context': Type.Literal(PRESENTATION_CONTEXT),
    id: Type.String(),
    type: Type.String({ description: '`Manifest` or `Collection`.' }),
    label: Type.Record(Type.String(), Type.Array(Type.String())),
  },
  {
    additionalProperties: true,
    description: 'A IIIF Presentation 3.0 document (validated against the consortium schema in the tests).',
  },
);
const ANSWERS = {
  200: answerIn(
    `The document: \`${JSON_LD}\`, or \`application/json\` when asked for.`,
    { 'application/ld+json': IIIF_DOCUMENT, 'application/json': IIIF_DOCUMENT },
    HEADERS,
  ),
  304: emptyAnswer('Not modified: If-None-Match names its ETag. No body.', HEADERS),
};

type LanguageMap = Record<string, string[]>;
const text = (value: string): LanguageMap => ({ none: [value] });

function typeFor(accept: string | undefined): string {
  const wanted = accept ?? '';
  return /application\/json/.test(wanted) && !/application\/ld\+json/.test(wanted) ? 'application/json' : JSON_LD;
}

export const iiifPresentationRoutes: RoutesPlugin = async (app, { runtime }) => {
  const baseUrl = runtime.config.baseUrl;
  const manifestUrl = (itemId: number) => `${baseUrl}/iiif/3/item/${itemId}/manifest`;
  const setUrl = (setId: number) => `${baseUrl}/iiif/3/item-set/${setId}/collection`;

  app.addHook('onSend', async (_request, reply) => {
    reply.header('Access-Control-Allow-Origin', '*');
  });

  async function seesAll(request: FastifyRequest): Promise<boolean> {
    return isEditorOrAbove((await request.principal(KEY_OR_SESSION))?.role);
  }

  /**
   * Answers 304 when If-None-Match names the tag of what the document is made from (nothing is
   * built then), else the document `build` makes, in the media type asked for.
   */
  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    {
      made,
      anonymous,
      build,
    }: { made: string; anonymous: boolean; build: () => Promise<{ made: string; body: object }> },
  ) {
    const type = typeFor(request.headers.accept);
    const tag = (from: string) => createHash('sha1').update(`${type}\n${baseUrl}\n${from}`).digest('hex');
    const opaque = tag(made);
    reply
      .header('ETag', `"${opaque}"`)
      .header('Cache-Control', anonymous ? PUBLIC_CACHE : PRIVATE_CACHE)
      .header('Vary', 'Accept, Cookie');
    const ifNoneMatch = parseTagList(request.headers['if-none-match']);
    if (ifNoneMatch !== undefined && !noneMatch(ifNoneMatch, { weak: false, opaque })) return reply.status(304).send();
    const built = await build();
    // Changed between the tag and the build: the answer names what it was made from.
    if (built.made !== made) reply.header('ETag', `"${tag(built.made)}"`);
    return reply.header('Content-Type', type).send(Buffer.from(JSON.stringify(built.body)));
  }

  function canvas(manifest: string, entry: CanvasEntry) {
    const id = `${manifest}/canvas/${entry.media_id}`;
    const service = [{ id: imageServiceUrl(baseUrl, entry.media_id), type: 'ImageService3', profile: 'level2' }];
    return {
      id,
      type: 'Canvas',
      label: text(entry.title),
      width: entry.width,
      height: entry.height,
      ...(entry.thumbnails
        ? { thumbnail: [{ id: thumbnailUrl(baseUrl, entry.media_id, 'medium'), type: 'Image', format: 'image/jpeg' }] }
        : {}),
      items: [
        {
          id: `${id}/page`,
          type: 'AnnotationPage',
          items: [
            {
              id: `${id}/page/painting`,
              type: 'Annotation',
              motivation: 'painting',
              target: id,
              body: {
                id: `${imageServiceUrl(baseUrl, entry.media_id)}/full/max/0/default.jpg`,
                type: 'Image',
                format: 'image/jpeg',
                width: entry.width,
                height: entry.height,
                service,
              },
            },
          ],
        },
      ],
    };
  }

  async function manifest(found: VisibleManifest) {
    const { doc, canvases, sets } = found;
    const id = manifestUrl(doc._id);
    const provider = await collectionName(runtime.documents, runtime.config);
    const first = canvases[0];
    return {
      '@context': PRESENTATION_CONTEXT,
      id,
      type: 'Manifest',
      label: text(doc.title),
      ...(doc.description ? { summary: text(doc.description) } : {}),
      metadata: [
        { label: { en: ['Title'] }, value: text(doc.title) },
        ...(sets.length ? [{ label: { en: ['Item sets'] }, value: { none: sets.map((set) => set.title) } }] : []),
        { label: { en: ['Identifier'] }, value: text(`${baseUrl}/item/${doc._id}`) },
      ],
      thumbnail: [
        first.thumbnails
          ? { id: thumbnailUrl(baseUrl, first.media_id, 'medium'), type: 'Image', format: 'image/jpeg' }
          : {
              id: `${imageServiceUrl(baseUrl, first.media_id)}/full/!200,200/0/default.jpg`,
              type: 'Image',
              format: 'image/jpeg',
            },
      ],
      homepage: [{ id: `${baseUrl}/item/${doc._id}`, type: 'Text', label: text(doc.title), format: 'text/html' }],
      seeAlso: [
        {
          id: resourceUrl(baseUrl, 'items', doc._id),
          type: 'Dataset',
          label: { en: ['JSON-LD record'] },
          format: 'application/ld+json',
        },
      ],
      partOf: sets.map((set: SetRef) => ({ id: setUrl(set.id), type: 'Collection', label: text(set.title) })),
      provider: [
        {
          id: `${baseUrl}/`,
          type: 'Agent',
          label: text(provider),
          homepage: [{ id: `${baseUrl}/`, type: 'Text', label: text(provider), format: 'text/html' }],
        },
      ],
      ...(doc.rights ? { rights: doc.rights } : {}),
      ...(runtime.config.collectionAttribution
        ? { requiredStatement: { label: { en: ['Attribution'] }, value: text(runtime.config.collectionAttribution) } }
        : {}),
      items: canvases.map((entry) => canvas(id, entry)),
    };
  }

  app.get(
    '/iiif/3/item/:id/manifest',
    {
      config: { documentedResponses: ANSWERS },
      schema: {
        tags: ['iiif'],
        summary: "An item's IIIF manifest",
        description:
          'A Presentation 3.0 Manifest with a Canvas per image media, in media order, each painted by its image with the image service. ' +
          'For every item that has an image the caller may see (404 otherwise): below Editor, a public item, its public media and public item sets.',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      },
    },
    async (request, reply) => {
      const all = await seesAll(request);
      // The tag first, from the document's head: a 304 reads no canvas.
      const made = await manifestRevision(runtime.documents, request.params.id, all);
      if (made === null) throw new NotFoundError('Manifest not found.');
      return answer(request, reply, {
        made,
        anonymous: !all,
        build: async () => {
          const found = await visibleManifest(runtime.documents, request.params.id, all);
          if (!found) throw new NotFoundError('Manifest not found.');
          return { made: found.revision, body: await manifest(found) };
        },
      });
    },
  );

  app.get(
    '/iiif/3/item-set/:id/collection',
    {
      config: { documentedResponses: ANSWERS },
      schema: {
        tags: ['iiif'],
        summary: "An item set's IIIF collection",
        description:
          'A Presentation 3.0 Collection of the manifests of its items the caller may see; 404 for a set they may not see.',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      },
    },
    async (request, reply) => {
      const all = await seesAll(request);
      const found = await visibleSetCollection(runtime.documents, request.params.id, all);
      if (!found) throw new NotFoundError('Collection not found.');
      const body = {
        '@context': PRESENTATION_CONTEXT,
        id: setUrl(found.set.id),
        type: 'Collection',
        label: text(found.set.title),
        items: found.manifests.map((item) => ({ id: manifestUrl(item.id), type: 'Manifest', label: text(item.title) })),
      };
      return answer(request, reply, {
        made: JSON.stringify(body),
        anonymous: !all,
        build: async () => ({ made: JSON.stringify(body), body }),
      });
    },
  );

  app.get(
    '/iiif/3/collection',
    {
      config: { documentedResponses: ANSWERS },
      schema: {
        tags: ['iiif'],
        summary: 'The IIIF collection of every item set',
        description: 'A Presentation 3.0 Collection of the collections of the item sets the caller may see.',
      },
    },
    async (request, reply) => {
      const all = await seesAll(request);
      const sets = await visibleSets(runtime.documents, all);
      const body = {
        '@context': PRESENTATION_CONTEXT,
        id: `${baseUrl}/iiif/3/collection`,
        type: 'Collection',
        label: text(await collectionName(runtime.documents, runtime.config)),
        items: sets.map((set) => ({ id: setUrl(set.id), type: 'Collection', label: text(set.title) })),
      };
      return answer(request, reply, {
        made: JSON.stringify(body),
        anonymous: !all,
        build: async () => ({ made: JSON.stringify(body), body }),
      });
    },
  );
};
