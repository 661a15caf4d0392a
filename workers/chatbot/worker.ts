import type { Runtime } from '../../app/kernel.js';
import type { ResourceRef } from '../../projections/chatbot/index-jobs.js';
import { chatbotServices } from '../../queries/chatbot/services.js';
import { allResources } from './all-resources.js';
import { EMBED_QUEUE, INDEX_QUEUE } from './index-queue.js';
import { indexResource } from './index-resource.js';
import { postsDueBetween, SCHEDULED_POST_CHECK_MS } from './scheduled-posts.js';

interface WorkerState {
  timer: NodeJS.Timeout;
  /** The last time scheduled posts were looked for. */
  checkedUntil: Date;
}

const workers = new WeakMap<Runtime, WorkerState>();

/** Enqueues the posts whose publication time has come since the last check. */
export async function checkScheduledPosts(runtime: Runtime): Promise<void> {
  const state = workers.get(runtime);
  if (!state) return;
  const now = runtime.clock.now();
  const due = await postsDueBetween(runtime.documents, state.checkedUntil, now);
  state.checkedUntil = now;
  for (const ref of due) await chatbotServices(runtime).indexing.enqueue(ref);
}

/**
 * Runs the index jobs and the periodic check for scheduled posts. When the read models survive
 * restarts but the vector index does not (or it is empty: its file was new or deleted), nothing
 * would replay into it, so it is refilled here. A persistent index that holds chunks is searched
 * as it is, and nothing is embedded at start.
 */
export async function startChatbotWorker(runtime: Runtime): Promise<void> {
  await runtime.jobs.process<ResourceRef, string>(
    INDEX_QUEUE,
    async (ref) => {
      const services = chatbotServices(runtime);
      services.indexing.started(ref);
      const deps = { documents: runtime.documents, embedder: services.embedder, vectorIndex: services.vectorIndex };
      const outcome = await indexResource(deps, ref, runtime.clock.now(), { provisionalFirst: true });
      if (outcome === 'provisional') await services.embedding.enqueue(ref);
      return outcome;
    },
    { concurrency: 1 },
  );
  // One at a time: the model has one thread, and searches take turns with these on it.
  await runtime.jobs.process<ResourceRef, string>(
    EMBED_QUEUE,
    async (ref) => {
      const services = chatbotServices(runtime);
      services.embedding.started(ref);
      return indexResource({ documents: runtime.documents, embedder: services.embedder, vectorIndex: services.vectorIndex }, ref, runtime.clock.now());
    },
    { concurrency: 1 },
  );
  const state: WorkerState = {
    checkedUntil: runtime.clock.now(),
    timer: setInterval(() => {
      checkScheduledPosts(runtime).catch((error: unknown) => runtime.logger.error({ err: error }, 'scheduled post check failed'));
    }, SCHEDULED_POST_CHECK_MS),
  };
  state.timer.unref();
  workers.set(runtime, state);
  const services = chatbotServices(runtime);
  if (runtime.documents.persistent && (!services.vectorIndex.persistent || (await services.vectorIndex.size()) === 0)) {
    for (const ref of await allResources(runtime.documents)) await services.indexing.enqueue(ref);
  }
}

export function stopChatbotWorker(runtime: Runtime): void {
  const state = workers.get(runtime);
  if (state) clearInterval(state.timer);
  workers.delete(runtime);
}
