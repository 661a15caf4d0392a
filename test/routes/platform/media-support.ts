import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { multipart, type Part } from '../assets/support.js';
import type { Runtime } from '../../../app/runtime.js';
import { DERIVATIVES_QUEUE } from '../../../workers/platform/derivatives.js';

/**
 * A photograph as a camera stores it: `stored` pixels (width x height) with an EXIF orientation,
 * in four coloured quadrants (red top left, green top right, blue bottom left, white bottom right
 * as stored) so a test can tell which part of the image it got.
 */
export async function photograph(
  width: number,
  height: number,
  {
    orientation = 1,
    format = 'jpeg',
  }: { orientation?: number; format?: 'jpeg' | 'png' | 'tiff' | 'webp' | 'gif' } = {},
): Promise<Buffer> {
  const half = (n: number) => Math.floor(n / 2);
  const quadrant = (r: number, g: number, b: number, w: number, h: number) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
  const image = sharp({ create: { width, height, channels: 3, background: { r: 255, g: 255, b: 255 } } }).composite([
    { input: await quadrant(255, 0, 0, half(width), half(height)), left: 0, top: 0 },
    { input: await quadrant(0, 255, 0, width - half(width), half(height)), left: half(width), top: 0 },
    { input: await quadrant(0, 0, 255, half(width), height - half(height)), left: 0, top: half(height) },
  ]);
  const encoded = await image[format]().toBuffer();
  return orientation === 1 ? encoded : sharp(encoded).withMetadata({ orientation })[format]().toBuffer();
}

/** POST /api/media as a form: `data` (the JSON body) and the file as `file[0]` (or `field`). */
export function uploadMedia(
  app: FastifyInstance,
  auth: string,
  data: unknown,
  file: { filename: string; content: Buffer; field?: string } | null,
  extra: Part[] = [],
): Promise<LightMyRequestResponse> {
  const body = multipart([
    ...(data === undefined ? [] : [{ name: 'data', value: typeof data === 'string' ? data : JSON.stringify(data) }]),
    ...(file ? [{ name: file.field ?? 'file[0]', filename: file.filename, content: file.content }] : []),
    ...extra,
  ]);
  return app.inject({ method: 'POST', url: `/api/media?${auth}`, headers: body.headers, payload: body.payload });
}

/** Resolves once every derivative job enqueued so far has run. */
export async function derivativesMade(runtime: Runtime): Promise<void> {
  await runtime.jobs.drain(DERIVATIVES_QUEUE);
  await runtime.projections.catchUp();
}

/** Decodes an image answer: its size, channels and format. */
export function decoded(body: Buffer) {
  return sharp(body).metadata();
}

/** The colour of the pixel at (x, y) of an image answer, as [r, g, b]. */
export async function pixel(body: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return Array.from(data.subarray(at, at + Math.min(3, info.channels)));
}
