import { sendStoredFile, uploadedFileHeaders } from '../http/stored-file.js';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isEditorOrAbove } from '../../contracts/users/roles.js';
import { THUMBNAIL_TYPES, type ThumbnailType } from '../../contracts/platform/media-files.js';
import { NotFoundError } from '../../infra/errors.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { servedMedia, type ServedMedia } from '../../queries/platform/media-files.js';
import { KEY_OR_SESSION } from '../http/auth.js';
import { noneMatch, parseTagList } from '../http/conditional/entity-tag.js';
import { answerIn, BINARY, emptyAnswer, sometimesSent } from '../http/documented-responses.js';
import { ASSET_FILE_CSP, SERVED_TYPES } from '../http/file-policy.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { FILES_PREFIX } from './media-file-urls.js';

/**
 * GET /files/original/{media id}.{ext} and /files/{large|medium|square}/{media id}.jpg: a media's
 * file and its derivatives (CONTRACT.md section 9), each only to callers who may see the media
 * (404 otherwise, as its record answers). A public media's files may be kept by shared caches
 * for a day; a private one's only by its viewer's browser, revalidating.
 */

/** Public files: kept a day, then revalidated (a media made private stops being served within the day). */
export const PUBLIC_FILE_CACHE = 'public, max-age=86400';
export const PRIVATE_FILE_CACHE = 'private, no-cache';

const header = (description: string) => Type.String({ description });
const CACHING = {
  ETag: header('Strong: the stored file\'s own (`"<sha256>"` for an original).'),
  'Cache-Control': header(`\`${PUBLIC_FILE_CACHE}\` for a public media's files, \`${PRIVATE_FILE_CACHE}\` otherwise.`),
  'Access-Control-Allow-Origin': header('`*`: viewers on other sites may load them.'),
  Vary: sometimesSent(header("`Cookie`, on a private media's answers.")),
};
const FILE_HEADERS = {
  ...CACHING,
  'Content-Length': Type.Integer({ description: 'Bytes in this answer.' }),
  'X-Content-Type-Options': header('`nosniff`.'),
};
const ORIGINAL_HEADERS = {
  ...FILE_HEADERS,
  'Content-Disposition': header("`inline` or `attachment`, with the uploaded file's name."),
  'Content-Security-Policy': header(`\`${ASSET_FILE_CSP}\`.`),
  'Accept-Ranges': header('`bytes`.'),
};
const ORIGINAL_BODIES: Record<string, TSchema> = Object.fromEntries(SERVED_TYPES.map((type) => [type, BINARY]));

const ORIGINAL_ANSWERS = {
  200: answerIn('The file as uploaded, in the media type it is served as.', ORIGINAL_BODIES, ORIGINAL_HEADERS),
  206: answerIn('The byte range asked for.', ORIGINAL_BODIES, {
    ...ORIGINAL_HEADERS,
    'Content-Range': header('`bytes <first>-<last>/<size>`.'),
  }),
  304: emptyAnswer('Not modified: If-None-Match names its ETag. No body.', CACHING),
  416: emptyAnswer('The range lies outside the file. No body.', {
    ...CACHING,
    'Content-Range': header('`bytes */<size>`.'),
  }),
};
const THUMBNAIL_ANSWERS = {
  200: answerIn('The JPEG.', { 'image/jpeg': BINARY }, FILE_HEADERS),
  304: emptyAnswer('Not modified: If-None-Match names its ETag. No body.', CACHING),
};

const ORIGINAL_NAME = /^([1-9][0-9]{0,15})(?:\.([a-z0-9]{1,16}))?$/;
const THUMBNAIL_NAME = /^([1-9][0-9]{0,15})\.jpg$/;

function isThumbnailType(value: string): value is ThumbnailType {
  return (THUMBNAIL_TYPES as readonly string[]).includes(value);
}

/** The media with `id` when the caller may see it (queries/platform/media-files.ts). */
export async function mediaForCaller(request: FastifyRequest, documents: DocumentStore, id: number) {
  const user = await request.principal(KEY_OR_SESSION);
  return servedMedia(documents, id, isEditorOrAbove(user?.role));
}

/** Sets the caching headers of a media's file; true when If-None-Match names its tag (answer 304). */
export function cachedAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  served: ServedMedia,
  opaque: string,
): boolean {
  reply.header('ETag', `"${opaque}"`).header('Cache-Control', served.isPublic ? PUBLIC_FILE_CACHE : PRIVATE_FILE_CACHE);
  if (!served.isPublic) reply.header('Vary', 'Cookie');
  const ifNoneMatch = parseTagList(request.headers['if-none-match']);
  return ifNoneMatch !== undefined && !noneMatch(ifNoneMatch, { weak: false, opaque });
}

const NOT_FOUND = 'File not found.';

export const mediaFileRoutes =
  (storage: FileStorage): RoutesPlugin =>
  async (app, { runtime }) => {
    // Every answer, the refusals too: a page on another site reads a 404 as such.
    app.addHook('onSend', async (_request, reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
    });
    app.get(
      `${FILES_PREFIX}/original/:file`,
      {
        config: { documentedResponses: ORIGINAL_ANSWERS },
        schema: {
          tags: ['platform'],
          summary: "A media's file as uploaded (its `o:original_url`)",
          description:
            'To callers who may see the media (404 otherwise). Served with the sniffed media type when it is on the allow list, ' +
            'otherwise as an application/octet-stream attachment. Answers a single `Range: bytes=...` with 206 and revalidates by ETag (304).',
          params: Type.Object({ file: Type.String({ maxLength: 40 }) }),
        },
      },
      async (request, reply) => {
        const match = ORIGINAL_NAME.exec(request.params.file);
        const served = match ? await mediaForCaller(request, runtime.documents, Number(match[1])) : null;
        const file = served?.media.file;
        if (!match || !served || !file || file.extension !== (match[2] ?? '')) throw new NotFoundError(NOT_FOUND);
        const info = await storage.stat(file.stored_name);
        if (!info) throw new NotFoundError(NOT_FOUND);
        const policy = uploadedFileHeaders(reply, file.media_type, file.source);
        if (cachedAnswer(request, reply, served, file.sha256)) return reply.status(304).send();
        return sendStoredFile(request, reply, {
          storage,
          storedName: file.stored_name,
          size: info.size,
          contentType: policy.contentType,
        });
      },
    );

    app.get(
      `${FILES_PREFIX}/:type/:file`,
      {
        config: { documentedResponses: THUMBNAIL_ANSWERS },
        schema: {
          tags: ['platform'],
          summary: "A media's derivative (its `o:thumbnail_urls`)",
          description:
            '`large` (within 800 x 800), `medium` (within 200 x 200) or `square` (200 x 200 from the centre), JPEG, EXIF orientation applied. ' +
            'To callers who may see the media; 404 before the derivatives are made and for files that are not images.',
          params: Type.Object({
            type: Type.String({ maxLength: 20, description: '`large`, `medium` or `square` (404 for anything else).' }),
            file: Type.String({ maxLength: 40 }),
          }),
        },
      },
      async (request, reply) => {
        const { type } = request.params;
        const match = THUMBNAIL_NAME.exec(request.params.file);
        if (!match || !isThumbnailType(type)) throw new NotFoundError(NOT_FOUND);
        const served = await mediaForCaller(request, runtime.documents, Number(match[1]));
        const derivative = served?.media.derivatives?.[type];
        if (!served || !derivative) throw new NotFoundError(NOT_FOUND);
        const info = await storage.stat(derivative.stored_name);
        if (!info) throw new NotFoundError(NOT_FOUND);
        reply.header('X-Content-Type-Options', 'nosniff');
        if (cachedAnswer(request, reply, served, derivative.stored_name)) return reply.status(304).send();
        return reply
          .header('Content-Type', 'image/jpeg')
          .header('Content-Length', info.size)
          .send(storage.openRead(derivative.stored_name));
      },
    );
  };
