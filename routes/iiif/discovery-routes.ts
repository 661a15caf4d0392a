import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../infra/errors.js';
import { ACTIVITIES_PER_PAGE, activityPage, activityTotal } from '../../queries/iiif/changes.js';
import type { ActivityDoc } from '../../contracts/iiif/documents.js';
import { noneMatch, parseTagList } from '../http/conditional/entity-tag.js';
import { answerIn, emptyAnswer } from '../http/documented-responses.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';

/**
 * IIIF Change Discovery API 1.0 (CONTRACT.md section 9): the activities on manifests and
 * collections as an OrderedCollection of pages, oldest first, the newest page last. They are a
 * fold of the event log (projections/iiif/manifests.ts), so a rebuild or a restart gives the same
 * documents, byte for byte. Public: they name only what anonymous callers may see, or saw.
 */

export const DISCOVERY_CONTEXT = 'http://iiif.io/api/discovery/1/context.json';
const JSON_LD = `application/ld+json;profile="${DISCOVERY_CONTEXT}"`;
const CACHE = 'public, max-age=0, must-revalidate';

const header = (description: string) => Type.String({ description });
const HEADERS = {
  ETag: header('Strong: the number of activities the answer covers.'),
  'Cache-Control': header(`\`${CACHE}\`.`),
  'Access-Control-Allow-Origin': header('`*`.'),
  Vary: header('`Accept`.'),
};
const DOCUMENT = Type.Object(
  {
    '@context': Type.Literal(DISCOVERY_CONTEXT),
    id: Type.String(),
    type: Type.String({ description: '`OrderedCollection` or `OrderedCollectionPage`.' }),
  },
  { additionalProperties: true, description: 'A Change Discovery 1.0 document.' },
);
const ANSWERS = {
  200: answerIn(
    `\`${JSON_LD}\`, or \`application/json\` when asked for.`,
    { 'application/ld+json': DOCUMENT, 'application/json': DOCUMENT },
    HEADERS,
  ),
  304: emptyAnswer('Not modified: If-None-Match names its ETag. No body.', HEADERS),
};

function typeFor(accept: string | undefined): string {
  const wanted = accept ?? '';
  return /application\/json/.test(wanted) && !/application\/ld\+json/.test(wanted) ? 'application/json' : JSON_LD;
}

export const iiifDiscoveryRoutes: RoutesPlugin = async (app, { runtime }) => {
  const baseUrl = runtime.config.baseUrl;
  const collectionUrl = `${baseUrl}/iiif/discovery/changes`;
  const pageUrl = (page: number) => `${collectionUrl}/page/${page}`;
  const objectUrl = (activity: ActivityDoc) =>
    activity.object_type === 'Manifest'
      ? `${baseUrl}/iiif/3/item/${activity.object_id}/manifest`
      : activity.object_id === 0
        ? `${baseUrl}/iiif/3/collection`
        : `${baseUrl}/iiif/3/item-set/${activity.object_id}/collection`;
  const lastPage = (total: number) => Math.max(0, Math.ceil(total / ACTIVITIES_PER_PAGE) - 1);

  app.addHook('onSend', async (_request, reply) => {
    reply.header('Access-Control-Allow-Origin', '*');
  });

  /** 304 when If-None-Match names the tag of what the answer covers; else the document. */
  function answer(request: FastifyRequest, reply: FastifyReply, made: string, build: () => object | Promise<object>) {
    const type = typeFor(request.headers.accept);
    const opaque = createHash('sha1').update(`${type}\n${baseUrl}\n${made}`).digest('hex');
    reply.header('ETag', `"${opaque}"`).header('Cache-Control', CACHE).header('Vary', 'Accept');
    const ifNoneMatch = parseTagList(request.headers['if-none-match']);
    if (ifNoneMatch !== undefined && !noneMatch(ifNoneMatch, { weak: false, opaque })) return reply.status(304).send();
    return Promise.resolve(build()).then((body) =>
      reply.header('Content-Type', type).send(Buffer.from(JSON.stringify(body))),
    );
  }

  app.get(
    '/iiif/discovery/changes',
    {
      config: { documentedResponses: ANSWERS },
      schema: {
        tags: ['iiif'],
        summary: 'IIIF Change Discovery: the collection of changes',
        description:
          'An OrderedCollection of Create, Update and Delete activities on the manifests and collections, with `totalItems` and its `first` and `last` pages (the newest last).',
      },
    },
    async (request, reply) => {
      const total = await activityTotal(runtime.documents);
      return answer(request, reply, `collection ${total}`, () => ({
        '@context': DISCOVERY_CONTEXT,
        id: collectionUrl,
        type: 'OrderedCollection',
        totalItems: total,
        first: { id: pageUrl(0), type: 'OrderedCollectionPage' },
        last: { id: pageUrl(lastPage(total)), type: 'OrderedCollectionPage' },
      }));
    },
  );

  app.get(
    '/iiif/discovery/changes/page/:page',
    {
      config: { documentedResponses: ANSWERS },
      schema: {
        tags: ['iiif'],
        summary: 'IIIF Change Discovery: one page of changes',
        description: `Up to ${ACTIVITIES_PER_PAGE} activities in log order, each with its \`object\` and \`endTime\`, with \`prev\` and \`next\` pages; 404 past the last.`,
        params: Type.Object({ page: Type.Integer({ minimum: 0 }) }),
      },
    },
    async (request, reply) => {
      const page = request.params.page;
      const total = await activityTotal(runtime.documents);
      const last = lastPage(total);
      if (page > last) throw new NotFoundError('Page not found.');
      // A page is whole once the log has gone past it: only the last one changes.
      const covered = Math.min(total, (page + 1) * ACTIVITIES_PER_PAGE);
      return answer(request, reply, `page ${page} ${covered}`, async () => ({
        '@context': DISCOVERY_CONTEXT,
        id: pageUrl(page),
        type: 'OrderedCollectionPage',
        startIndex: page * ACTIVITIES_PER_PAGE,
        partOf: { id: collectionUrl, type: 'OrderedCollection' },
        ...(page > 0 ? { prev: { id: pageUrl(page - 1), type: 'OrderedCollectionPage' } } : {}),
        ...(page < last ? { next: { id: pageUrl(page + 1), type: 'OrderedCollectionPage' } } : {}),
        orderedItems: (await activityPage(runtime.documents, page)).map((activity) => ({
          type: activity.type,
          object: { id: objectUrl(activity), type: activity.object_type },
          endTime: activity.end_time.replace(/\.\d{3}Z$/, 'Z'),
        })),
      }));
    },
  );
};
