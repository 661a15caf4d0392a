import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { isImageFile, THUMBNAIL_TYPES, thumbnailPlan } from '../../contracts/platform/media-files.js';
import { BadRequestError, errorMessage, NotFoundError } from '../../infra/errors.js';
import { isStorageFailure } from '../../infra/storage-errors.js';
import {
  ImageRequestError,
  planImageRequest,
  type ImagePlan,
  type ImageSize,
} from '../../infra/images/iiif-request.js';
import { levelsOfOriginal, renderImage, type ImageSource } from '../../infra/images/render.js';
import type { MediaDoc } from '../../contracts/platform/documents.js';
import type { ServedMedia } from '../../queries/platform/media-files.js';
import type { ImageServices } from '../../contracts/platform/image-services.js';
import { answerIn, BINARY, emptyAnswer } from '../http/documented-responses.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { cachedAnswer, mediaForCaller } from '../platform/media-file-routes.js';
import { imageServiceUrl } from '../platform/media-file-urls.js';

/**
 * The IIIF Image API 3.0 at compliance level 2 (CONTRACT.md section 9) for every media whose
 * file is an image: `{base}` answers 303 to `{base}/info.json`, and
 * `{base}/{region}/{size}/{rotation}/{quality}.{format}` the image, of exactly the size the
 * request implies. Pixels come from the media's tiled pyramid once the derivative worker made
 * it (only the tiles under a region are decoded), else from the original; renders are capped
 * (ImageServices.slots) and kept on disk, so a tile asked again is read, not rendered.
 */

export const IMAGE_CONTEXT = 'http://iiif.io/api/image/3/context.json';
const INFO_TYPE = `application/ld+json;profile="${IMAGE_CONTEXT}"`;
const TILE_SIZE = 512;
/** Upscaled answers stop here (the image's own area when larger): the service's `maxArea`. */
const MAX_UPSCALED_AREA = 4096 * 4096;
const CONTENT_TYPES = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const;

const header = (description: string) => Type.String({ description });
const CACHING = {
  ETag: header('Strong: the image file and the canonical request.'),
  'Cache-Control': header('`public, max-age=86400` for a public media, `private, no-cache` otherwise.'),
  'Access-Control-Allow-Origin': header('`*`.'),
};
const NOT_MODIFIED = emptyAnswer('Not modified: If-None-Match names its ETag. No body.', CACHING);
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

const ImageInfo = Type.Object(
  {
    '@context': Type.Literal(IMAGE_CONTEXT),
    id: Type.String({ description: 'The service base URL.' }),
    type: Type.Literal('ImageService3'),
    protocol: Type.Literal('http://iiif.io/api/image'),
    profile: Type.Literal('level2'),
    width: Type.Integer({ description: "The original's width, after EXIF orientation." }),
    height: Type.Integer({ description: "The original's height, after EXIF orientation." }),
    maxArea: Type.Integer({ description: 'The largest area answered (upscaling stops here).' }),
    sizes: Type.Array(Type.Object({ type: Type.Literal('Size'), width: Type.Integer(), height: Type.Integer() }), {
      description: 'The derivatives, smallest first: sizes answered fastest.',
    }),
    tiles: Type.Array(
      Type.Object({ type: Type.Literal('Tile'), width: Type.Integer(), scaleFactors: Type.Array(Type.Integer()) }),
    ),
    extraQualities: Type.Array(Type.String()),
    extraFormats: Type.Array(Type.String()),
    extraFeatures: Type.Array(Type.String()),
  },
  { description: 'The image service description.' },
);
type ImageInfo = typeof ImageInfo.static;

function scaleFactors(size: ImageSize): number[] {
  const factors = [1];
  while (Math.max(size.width, size.height) / factors[factors.length - 1] > TILE_SIZE)
    factors.push(factors[factors.length - 1] * 2);
  return factors;
}

function maxArea(size: ImageSize): number {
  return Math.max(size.width * size.height, MAX_UPSCALED_AREA);
}

function imageInfo(baseUrl: string, media: MediaDoc, size: ImageSize): ImageInfo {
  const sizes = THUMBNAIL_TYPES.filter((type) => type !== 'square')
    .map((type) => thumbnailPlan(type, size).size)
    .sort((a, b) => a.width - b.width);
  return {
    '@context': IMAGE_CONTEXT,
    id: imageServiceUrl(baseUrl, media.id),
    type: 'ImageService3',
    protocol: 'http://iiif.io/api/image',
    profile: 'level2',
    width: size.width,
    height: size.height,
    maxArea: maxArea(size),
    sizes: sizes.map((s) => ({ type: 'Size' as const, width: s.width, height: s.height })),
    tiles: [{ type: 'Tile', width: TILE_SIZE, scaleFactors: scaleFactors(size) }],
    extraQualities: ['color', 'gray', 'bitonal'],
    extraFormats: ['png', 'webp'],
    extraFeatures: [
      'mirroring',
      'regionSquare',
      'sizeUpscaling',
      'rotationBy90s',
      'baseUriRedirect',
      'cors',
      'jsonldMediaType',
      'canonicalLinkHeader',
    ],
  };
}

/** The media's image and its upright size, when the caller may see it and its file is an image. */
function imageOf(served: ServedMedia | null): { served: ServedMedia; size: ImageSize } | null {
  const file = served?.media.file;
  if (!served || !file || !isImageFile(file) || served.media.file_status === 'failed') return null;
  return { served, size: file.pixels };
}

const NO_IMAGE = 'Image not found.';

/** `info.json` as JSON-LD, or as plain JSON when the client asks for `application/json` and not JSON-LD. */
function infoType(accept: string | undefined): string {
  const wanted = accept ?? '';
  return /application\/json/.test(wanted) && !/application\/ld\+json/.test(wanted) ? 'application/json' : INFO_TYPE;
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export const iiifImageRoutes =
  (services: ImageServices): RoutesPlugin =>
  async (app, { runtime }) => {
    const baseUrl = runtime.config.baseUrl;
    // Every answer, the refusals too: a viewer on another site reads a 404 or a 400 as such.
    app.addHook('onSend', async (_request, reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
    });

    async function visibleImage(request: Parameters<typeof mediaForCaller>[0], id: number) {
      const image = imageOf(await mediaForCaller(request, runtime.documents, id));
      if (!image) throw new NotFoundError(NO_IMAGE);
      return image;
    }

    /** Where the pixels come from: the pyramid once made, the original before. */
    async function sourceOf(media: MediaDoc, size: ImageSize): Promise<ImageSource> {
      const pyramid = media.derivatives?.pyramid;
      const pyramidPath = pyramid ? await services.storage.localPath(pyramid.stored_name) : null;
      if (pyramid && pyramidPath) return { path: pyramidPath, levels: pyramid.levels, autoOrient: false };
      const originalPath = media.file ? await services.storage.localPath(media.file.stored_name) : null;
      if (!originalPath) throw new NotFoundError(NO_IMAGE);
      return { path: originalPath, levels: levelsOfOriginal(size), autoOrient: true };
    }

    /** The disk cache refuses writes (since the first refusal of this run: a full disk). */
    let cacheRefusing = false;

    /**
     * The rendered answer, from the disk cache or rendered now and kept there: its path, or its
     * bytes when the disk refuses to keep them (the cache only saves work: the answer goes out).
     */
    async function renderedImage(
      media: MediaDoc,
      size: ImageSize,
      plan: ImagePlan,
      sha256: string,
    ): Promise<string | Buffer> {
      const dir = join(services.cacheDir, String(media.id), sha256.slice(0, 32));
      const path = join(dir, `${sha1(plan.canonical)}.${plan.format}`);
      if (
        await stat(path).then(
          () => true,
          () => false,
        )
      )
        return path;
      const source = await sourceOf(media, size);
      let data: Buffer;
      try {
        data = (await services.slots.run(() => renderImage(source, plan))).data;
      } catch (error) {
        runtime.logger.warn({ media: media.id, err: errorMessage(error) }, 'an image request could not be rendered');
        throw new NotFoundError('The image cannot be decoded.');
      }
      const part = `${path}.${randomUUID()}.part`;
      try {
        await mkdir(dir, { recursive: true });
        await writeFile(part, data);
        await rename(part, path);
      } catch (error) {
        await rm(part, { force: true });
        if (!isStorageFailure(error)) throw error;
        if (!cacheRefusing)
          runtime.logger.warn(
            { err: errorMessage(error) },
            'the image cache cannot write: images are answered uncached',
          );
        cacheRefusing = true;
        return data;
      }
      if (cacheRefusing) runtime.logger.info({}, 'the image cache writes again');
      cacheRefusing = false;
      return path;
    }

    app.get(
      '/iiif/3/image/:id',
      {
        config: {
          documentedResponses: {
            303: emptyAnswer('To `{base}/info.json`.', {
              Location: header('`{base}/info.json`.'),
              ...{ 'Access-Control-Allow-Origin': CACHING['Access-Control-Allow-Origin'] },
            }),
          },
        },
        schema: {
          tags: ['iiif'],
          summary: 'IIIF image service base URI',
          description: 'Answers 303 to the service description (`info.json`), as the Image API asks.',
          params: IdParams,
        },
      },
      async (request, reply) => {
        await visibleImage(request, request.params.id);
        return reply.redirect(`${imageServiceUrl(baseUrl, request.params.id)}/info.json`, 303);
      },
    );

    app.get(
      '/iiif/3/image/:id/info.json',
      {
        config: {
          documentedResponses: {
            200: answerIn(
              `The image service description: \`${INFO_TYPE}\`, or \`application/json\` when asked for.`,
              { 'application/ld+json': ImageInfo, 'application/json': ImageInfo },
              { ...CACHING, Vary: header('`Accept`.') },
            ),
            304: emptyAnswer('Not modified: If-None-Match names its ETag. No body.', {
              ...CACHING,
              Vary: header('`Accept`.'),
            }),
          },
        },
        schema: {
          tags: ['iiif'],
          summary: 'IIIF image service description (info.json)',
          description:
            'Image API 3.0, level 2: the upright width and height, `sizes` (the derivatives), `tiles`, and what is supported beyond level 2. ' +
            'JSON-LD with the Image API profile, or plain JSON when `Accept` names `application/json` and not `application/ld+json`. ' +
            'To callers who may see the media (404 otherwise, and for files that are not images).',
          params: IdParams,
        },
      },
      async (request, reply) => {
        const { served, size } = await visibleImage(request, request.params.id);
        const type = infoType(request.headers.accept);
        // Bytes, so the media type goes out as written (Fastify would add a charset to a string's).
        const body = Buffer.from(JSON.stringify(imageInfo(baseUrl, served.media, size)));
        reply.header('Vary', 'Accept');
        if (cachedAnswer(request, reply, served, sha1(`${type}\n${body.toString()}`))) return reply.status(304).send();
        return reply.header('Content-Type', type).send(body);
      },
    );

    app.get(
      '/iiif/3/image/:id/:region/:size/:rotation/:file',
      {
        config: {
          documentedResponses: {
            200: answerIn(
              'The image, of exactly the size the request implies.',
              Object.fromEntries(Object.values(CONTENT_TYPES).map((type) => [type, BINARY])),
              { ...CACHING, Link: header('`<{canonical URL}>;rel="canonical"`.') },
            ),
            304: NOT_MODIFIED,
            501: Type.Object(
              { errors: Type.Object({ error: Type.String() }) },
              {
                description:
                  'A feature beyond level 2 (a rotation other than 90s, a format other than jpg, png, webp).',
              },
            ),
          },
        },
        schema: {
          tags: ['iiif'],
          summary: 'IIIF image request',
          description:
            'Region `full`, `square`, `x,y,w,h`, `pct:x,y,w,h`; size `max`, `w,`, `,h`, `pct:n`, `w,h`, `!w,h` and their `^` forms; rotation `0`, `90`, `180`, `270`, `!` to mirror; ' +
            'quality `default`, `color`, `gray`, `bitonal`; format `jpg`, `png`, `webp`. Malformed requests and regions outside the image are 400; features beyond these 501.',
          params: Type.Object({
            id: Type.Integer({ minimum: 1 }),
            region: Type.String({ maxLength: 100 }),
            size: Type.String({ maxLength: 100 }),
            rotation: Type.String({ maxLength: 20 }),
            file: Type.String({ maxLength: 30, description: '`{quality}.{format}`.' }),
          }),
        },
      },
      async (request, reply) => {
        const { id, region, size: sizeParam, rotation, file } = request.params;
        const { served, size } = await visibleImage(request, id);
        let plan: ImagePlan;
        try {
          plan = planImageRequest({ region, size: sizeParam, rotation, qualityFormat: file }, size, {
            maxArea: maxArea(size),
          });
        } catch (error) {
          if (!(error instanceof ImageRequestError)) throw error;
          if (error.status === 400) throw new BadRequestError(error.message);
          return reply.status(501).send({ errors: { error: error.message } });
        }
        const sha256 = served.media.file?.sha256 ?? '';
        if (cachedAnswer(request, reply, served, `${sha256.slice(0, 32)}-${sha1(plan.canonical).slice(0, 16)}`))
          return reply.status(304).send();
        reply.header('Link', `<${imageServiceUrl(baseUrl, id)}/${plan.canonical}>;rel="canonical"`);
        const rendered = await renderedImage(served.media, size, plan, sha256);
        return reply
          .header('Content-Type', CONTENT_TYPES[plan.format])
          .send(typeof rendered === 'string' ? createReadStream(rendered) : rendered);
      },
    );
  };
