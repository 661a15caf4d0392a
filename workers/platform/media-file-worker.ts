import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModuleRuntime } from '../../commands/module-runtime.js';
import { mediaFileState } from '../../commands/platform/media-file-handlers.js';
import { MEDIA_EVENTS } from '../../contracts/platform/events.js';
import { MEDIA_FILE_EVENTS, storedNamesOf } from '../../contracts/platform/media-files.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import { errorMessage } from '../../infra/errors.js';
import { mediaDocs } from '../../contracts/platform/documents.js';
import { imageCounts, mediaOwingDerivatives } from '../../queries/platform/media-files.js';
import { removeOrphanFiles } from '../files/orphan-files.js';
import { DERIVATIVES_QUEUE, derivativesJobId, runDerivativesJob, type DerivativesJob } from './derivatives.js';
import type { ImageServices } from '../../contracts/platform/image-services.js';

/**
 * The platform module's background work on media files: the derivative jobs (fed by each
 * MediaFileIngested, and at a start by every image still owed them), the removal of a deleted
 * media's files, and a sweep of the files no media owns.
 */

/**
 * Two images at a time: libvips runs each pipeline on one thread here (sharp's default on glibc),
 * so one job at a time left the second core idle (docs/perf-history.md). They take no render
 * slot of the image requests, which go on meanwhile.
 */
const JOB_CONCURRENCY = 2;
const PAGE = 500;

const IngestedData = Type.Object({ id: Type.Integer(), file: Type.Object({ sha256: Type.String() }) });
const DeletedData = Type.Object({ id: Type.Integer() });

export function enqueueDerivatives(runtime: ModuleRuntime, job: Omit<DerivativesJob, 'replace'>): Promise<string> {
  return runtime.jobs.add<DerivativesJob>(
    DERIVATIVES_QUEUE,
    { ...job, replace: false },
    { jobId: derivativesJobId(job), attempts: 3, backoffMs: 5_000 },
  );
}

/** Removes the stored files and the rendered cache of a media that was deleted. */
async function removeDeletedMediaFiles(runtime: ModuleRuntime, services: ImageServices, id: number): Promise<void> {
  const state = await mediaFileState(runtime.commandContext(null), id);
  if (state.media.status !== 'deleted') return;
  for (const name of storedNamesOf(state.file, state.derivatives)) await services.storage.remove(name);
  await rm(join(services.cacheDir, String(id)), { recursive: true, force: true });
}

/**
 * After each batch the projections applied: a new file's derivatives are owed, a deleted media's
 * files go. Registered by the module's create, in a runtime that runs workers (a CLI's events
 * reach the server's projections, and so this).
 */
export function mediaFileListener(runtime: ModuleRuntime, services: ImageServices) {
  return async (batch: readonly StoredEvent[]): Promise<void> => {
    for (const event of batch) {
      if (event.type === MEDIA_FILE_EVENTS.ingested && Value.Check(IngestedData, event.data)) {
        await enqueueDerivatives(runtime, { media_id: event.data.id, sha256: event.data.file.sha256 });
      } else if (event.type === MEDIA_EVENTS.deleted && Value.Check(DeletedData, event.data)) {
        const id = event.data.id;
        await removeDeletedMediaFiles(runtime, services, id).catch((error: unknown) =>
          runtime.logger.error({ media: id, err: errorMessage(error) }, "a deleted media's files could not be removed"),
        );
      }
    }
  };
}

/** Enqueues the derivatives of every image still owed them (a crash or a restart lost the in-process queue's jobs). */
async function enqueueOwed(runtime: ModuleRuntime, signal: AbortSignal): Promise<void> {
  let after = 0;
  while (!signal.aborted) {
    const page = await mediaOwingDerivatives(runtime.documents, after, PAGE);
    for (const media of page) {
      if (media.file) await enqueueDerivatives(runtime, { media_id: media._id, sha256: media.file.sha256 });
      after = media._id;
    }
    if (page.length < PAGE) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Starts the derivative jobs' worker, then, when some image is still owed its derivatives (a
 * crash or a restart lost the in-process queue's jobs), enqueues them in the background.
 */
export async function startMediaFileWorker(runtime: ModuleRuntime, services: ImageServices): Promise<void> {
  await runtime.jobs.process<DerivativesJob, string>(
    DERIVATIVES_QUEUE,
    async (job) => {
      try {
        return await runDerivativesJob(runtime, services, job);
      } catch (error) {
        runtime.logger.error({ media: job.media_id, err: errorMessage(error) }, 'derivatives could not be made');
        throw error;
      }
    },
    { concurrency: JOB_CONCURRENCY },
  );
  if ((await imageCounts(runtime.documents)).derivatives_pending > 0)
    runtime.background.run('media-derivatives-owed', (_progress, signal) => enqueueOwed(runtime, signal));
}

/**
 * Removes the media files no media owns (workers/files/orphan-files.ts): a crash between storing
 * a file and recording it, or between a delete and the removal of its files.
 */
export function removeOrphanMediaFiles(runtime: ModuleRuntime, services: ImageServices, now: number): Promise<number> {
  return removeOrphanFiles(
    runtime,
    services.storage,
    {
      label: 'media files',
      projection: 'platform-media',
      async ownedNames() {
        const docs = await mediaDocs(runtime.documents).find({}, { fields: ['file', 'derivatives'] });
        return new Set(docs.flatMap((doc) => storedNamesOf(doc.file ?? null, doc.derivatives ?? null)));
      },
    },
    now,
  );
}
