import { sendStoredFile, uploadedFileHeaders } from '../http/stored-file.js';
import { Type, type TSchema } from '@sinclair/typebox';
import { answerIn, BINARY, emptyAnswer } from '../http/documented-responses.js';
import { noneMatch, parseTagList } from '../http/conditional/entity-tag.js';
import type { AssetRoutesOptions } from './options.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { NotFoundError } from '../../infra/errors.js';
import { findAsset } from '../../queries/assets/assets.js';
import { ASSET_FILE_CSP, SERVED_TYPES } from '../http/file-policy.js';
import { TAG } from './schemas.js';

const header = (description: string) => Type.String({ description });
const ETAG = {
  ETag: header('Strong `"<sha256 of the file>"`, sent with every answer but 404.'),
  'Cache-Control': header('`no-cache`: revalidate by ETag.'),
};
const FILE_HEADERS = {
  ...ETAG,
  'Content-Disposition': header("`inline` or `attachment`, with the asset's filename."),
  'Accept-Ranges': header('`bytes`.'),
  'X-Content-Type-Options': header('`nosniff`.'),
  'Content-Security-Policy': header(`\`${ASSET_FILE_CSP}\`.`),
  'Content-Length': Type.Integer({ description: 'Bytes in this answer.' }),
};
/** Text types carry `; charset=utf-8`; the media type is the same. */
const FILE_BODIES: Record<string, TSchema> = Object.fromEntries(SERVED_TYPES.map((type) => [type, BINARY]));

/** The answers the route streams or sends without a body, which its response schemas cannot describe. */
const FILE_ANSWERS = {
  200: answerIn('The whole file, in the media type it is served as.', FILE_BODIES, FILE_HEADERS),
  206: answerIn('The byte range asked for.', FILE_BODIES, {
    ...FILE_HEADERS,
    'Content-Range': header('`bytes <first>-<last>/<size>`.'),
  }),
  304: emptyAnswer("Not modified: If-None-Match names the file's ETag. No body.", ETAG),
  416: emptyAnswer('The range lies outside the file. No body.', {
    ...ETAG,
    'Content-Range': header('`bytes */<size>`.'),
  }),
};

const FILE_NAME = /^([1-9][0-9]{0,15})(?:\.([a-z0-9]{1,16}))?$/;

/** GET /asset-files/{id}.{ext}: the asset's current file, public (assets appear on public pages). */
export const fileRoutes: RoutesPlugin<AssetRoutesOptions> = async (app, { runtime, storage }) => {
  app.get(
    '/:file',
    {
      config: { documentedResponses: FILE_ANSWERS },
      schema: {
        tags: [TAG],
        summary: "An asset's file (its canonical_url)",
        description:
          'Public. Served with the sniffed media type when it is on the allow list (images, PDF, audio, video, plain text), otherwise as an application/octet-stream attachment; SVG is an attachment. ' +
          "Always `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox; default-src 'none'`. " +
          'Answers a single `Range: bytes=...` with 206 (416 outside the file) and revalidates by ETag (304).',
        params: Type.Object({ file: Type.String({ maxLength: 40 }) }),
      },
    },
    async (request, reply) => {
      const match = FILE_NAME.exec(request.params.file);
      const asset = match ? await findAsset(runtime.documents, Number(match[1])) : null;
      if (!match || !asset || asset.extension !== (match[2] ?? '')) throw new NotFoundError('File not found.');
      const info = await storage.stat(asset.stored_name);
      if (!info) throw new NotFoundError('File not found.');
      const policy = uploadedFileHeaders(reply, asset.mime_type, asset.filename);
      reply.header('Cache-Control', 'no-cache').header('ETag', `"${asset.sha256}"`);
      // As every other read answers it (app/conditional/hook.ts): a list of tags, weak comparison.
      const ifNoneMatch = parseTagList(request.headers['if-none-match']);
      if (ifNoneMatch !== undefined && !noneMatch(ifNoneMatch, { weak: false, opaque: asset.sha256 }))
        return reply.status(304).send();
      return sendStoredFile(request, reply, {
        storage,
        storedName: asset.stored_name,
        size: info.size,
        contentType: policy.contentType,
      });
    },
  );
};
