import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ModuleRuntime } from '../../commands/module-runtime.js';
import {
  mediaFileState,
  recordDerivatives,
  recordDerivativesFailure,
} from '../../commands/platform/media-file-handlers.js';
import {
  isImageFile,
  THUMBNAIL_TYPES,
  type Derivative,
  type Derivatives,
  type ThumbnailType,
} from '../../contracts/platform/media-files.js';
import { errorMessage } from '../../infra/errors.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { type ImageSize } from '../../infra/images/iiif-request.js';
import { IIIF_IMAGE_TYPES } from '../../infra/images/image-size.js';
import { makePyramid, renderImage, type ImageSource } from '../../infra/images/render.js';
import type { ImageServices } from '../../contracts/platform/image-services.js';
import { thumbnailPlan } from '../../contracts/platform/media-files.js';

export const DERIVATIVES_QUEUE = 'media-derivatives';

/** A media's derivatives owed for the file of `sha256`; `replace`: made again even if they exist. */
export interface DerivativesJob {
  media_id: number;
  sha256: string;
  replace: boolean;
}

/** One job per file: BullMQ (and the in-process queue) take a second add of the same id as the first. */
export function derivativesJobId(job: Pick<DerivativesJob, 'media_id' | 'sha256'>): string {
  return `derivatives-${job.media_id}-${job.sha256.slice(0, 16)}`;
}

async function store(storage: FileStorage, source: Readable, extension: string): Promise<string> {
  const pending = await storage.receive(source, extension);
  try {
    await pending.commit();
  } catch (error) {
    await pending.discard();
    throw error;
  }
  return pending.storedName;
}

/** Thrown when the image cannot be decoded: recorded once, never retried. */
class UndecodableImage extends Error {}

/**
 * Makes the pyramid from the original (the one full decode, EXIF orientation applied), then the
 * three JPEGs from its levels, and stores them all. Answers what it stored; on a failure it
 * removes what it had stored already.
 */
async function makeDerivatives(storage: FileStorage, originalPath: string, size: ImageSize): Promise<Derivatives> {
  const work = await mkdtemp(join(tmpdir(), 'derivatives-'));
  const stored: string[] = [];
  try {
    const pyramidPath = join(work, 'pyramid.tif');
    const pyramid = await makePyramid(originalPath, pyramidPath).catch((error: unknown) => {
      throw new UndecodableImage(errorMessage(error));
    });
    const source: ImageSource = { path: pyramidPath, levels: pyramid.levels, autoOrient: false };
    const made: Partial<Record<ThumbnailType, Derivative>> = {};
    for (const type of THUMBNAIL_TYPES) {
      const image = await renderImage(source, thumbnailPlan(type, size));
      const name = await store(storage, Readable.from([image.data]), 'jpg');
      stored.push(name);
      made[type] = { stored_name: name, width: image.width, height: image.height };
    }
    const pyramidName = await store(storage, createReadStream(pyramidPath), 'tif');
    stored.push(pyramidName);
    const { large, medium, square } = made;
    if (!large || !medium || !square) throw new Error('A derivative was not made.');
    return { large, medium, square, pyramid: { stored_name: pyramidName, levels: pyramid.levels } };
  } catch (error) {
    for (const name of stored) await storage.remove(name);
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export type DerivativesOutcome = 'made' | 'failed' | 'skipped';

/**
 * Makes and records a media's derivatives, as its job or `npm run derivatives` asks. Nothing
 * when the media is gone, has another file now, or (unless `replace`) has them already. An image
 * that cannot be decoded is recorded as such (MediaDerivativesFailed) and logged, never retried;
 * a storage failure is thrown, for the queue to retry.
 */
export async function runDerivativesJob(
  runtime: ModuleRuntime,
  services: ImageServices,
  job: DerivativesJob,
): Promise<DerivativesOutcome> {
  const ctx = runtime.commandContext(null);
  const state = await mediaFileState(ctx, job.media_id);
  const file = state.file;
  if (state.media.status !== 'live' || !file || file.sha256 !== job.sha256) return 'skipped';
  // An image whose header could not be read at ingest: its read model says so already.
  if (!isImageFile(file)) return IIIF_IMAGE_TYPES.has(file.media_type) ? 'failed' : 'skipped';
  if (state.derivatives && !job.replace) return 'skipped';
  const fail = async (reason: string): Promise<DerivativesOutcome> => {
    runtime.logger.warn({ media: job.media_id, reason }, 'a media image could not be decoded: no derivatives');
    await recordDerivativesFailure(ctx, { id: job.media_id, sha256: job.sha256, reason });
    return 'failed';
  };
  const originalPath = await services.storage.localPath(file.stored_name);
  if (!originalPath) return fail('The stored file is missing.');
  let derivatives: Derivatives;
  try {
    derivatives = await makeDerivatives(services.storage, originalPath, file.pixels);
  } catch (error) {
    if (error instanceof UndecodableImage) return fail(error.message);
    throw error;
  }
  const { recorded, unused } = await recordDerivatives(ctx, {
    id: job.media_id,
    sha256: job.sha256,
    derivatives,
    replace: job.replace,
  });
  for (const name of unused) await services.storage.remove(name);
  return recorded ? 'made' : 'skipped';
}
