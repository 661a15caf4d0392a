import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { ResourceRef } from '../../contracts/chatbot/documents.js';
import type { ChatbotServices } from './services.js';
import { IndexCatchUp, INDEX_CATCH_UP_TASK } from './index-catch-up.js';
import { enqueueOutbox, settlingOutbox } from './index-outbox.js';
import { EMBED_QUEUE, INDEX_QUEUE } from './index-queue.js';
import { indexResource } from './index-resource.js';
import { ReadingTracker } from './reading-tracker.js';
import { postsDueBetween, SCHEDULED_POST_CHECK_MS } from './scheduled-posts.js';

/** How long after the worker starts the index work owed from before is queued. */
export const OUTBOX_RESUME_DELAY_MS = 2000;

/** The chatbot's running worker in one runtime. */
export interface ChatbotWorker {
  /** Enqueues the posts whose publication time has come since the last check. */
  checkScheduledPosts(): Promise<void>;
  stop(): void;
}

/**
 * Runs the index jobs and the periodic check for scheduled posts. When the read models survive
 * restarts but the vector index does not (or it is empty: its file was new or deleted), nothing
 * would replay into it, so it is refilled, by a background task (index-catch-up.ts) that this
 * start does not wait for. A persistent index that holds chunks is searched as it is: only the
 * resources the index outbox still marks (changed before a stop, by a CLI, or before a backup's
 * snapshot, and not indexed since) are indexed again.
 *
 * The server starts this once it listens (runtime.startWorkers): index jobs share the event loop
 * with requests, never with the plugins' registration.
 */
export async function startChatbotWorker(runtime: ModuleRuntime, services: ChatbotServices): Promise<ChatbotWorker> {
  const held = await heldModels(runtime, services);
  const refill =
    runtime.documents.persistent &&
    (!services.vectorIndex.persistent || held.upgrade || (await services.vectorIndex.size()) === 0);
  const catchUp = refill ? new IndexCatchUp(runtime.documents, services.indexing, !runtime.jobs.durable) : null;
  const tracker = new ReadingTracker(runtime.documents, runtime.clock, runtime.logger);
  await runtime.jobs.process<ResourceRef, string>(
    INDEX_QUEUE,
    async (ref) => {
      services.indexing.started(ref);
      const deps = { documents: runtime.documents, embedder: services.embedder, vectorIndex: services.vectorIndex };
      try {
        return await settlingOutbox(runtime.documents, ref, async () => {
          const outcome = await indexResource(deps, ref, runtime.clock.now(), { provisionalFirst: true });
          // Stand-in vectors: the mark stays until the embed job has given the model's.
          if (outcome === 'provisional') await services.embedding.enqueue(ref);
          return outcome;
        }).then((outcome) => {
          tracker.ended(outcome);
          return outcome;
        });
      } finally {
        catchUp?.ended(ref);
      }
    },
    { concurrency: 1 },
  );
  // One at a time: the model has one thread, and searches take turns with these on it.
  await runtime.jobs.process<ResourceRef, string>(
    EMBED_QUEUE,
    async (ref) => {
      services.embedding.started(ref);
      tracker.reads();
      const deps = { documents: runtime.documents, embedder: services.embedder, vectorIndex: services.vectorIndex };
      const outcome = await settlingOutbox(runtime.documents, ref, () => indexResource(deps, ref, runtime.clock.now()));
      tracker.ended(outcome);
      return outcome;
    },
    { concurrency: 1 },
  );
  /** The last time scheduled posts were looked for. */
  let checkedUntil = runtime.clock.now();
  const checkScheduledPosts = async () => {
    const now = runtime.clock.now();
    const due = await postsDueBetween(runtime.documents, checkedUntil, now);
    checkedUntil = now;
    for (const ref of due) await services.indexing.enqueue(ref);
  };
  const timer = setInterval(() => {
    checkScheduledPosts().catch((error: unknown) =>
      runtime.logger.error({ err: error }, 'scheduled post check failed'),
    );
  }, SCHEDULED_POST_CHECK_MS);
  timer.unref();
  if (catchUp)
    runtime.background.run(INDEX_CATCH_UP_TASK, async (progress, signal) => {
      await catchUp.run(progress, signal);
      // Read again: the earlier model's chunks went with the resources' new ones.
      if (held.upgrade && !signal.aborted) await services.indexModels.refresh(services);
    });
  // Later and in the background: the start's first requests go first, and after a rebuild or a
  // large import every resource is marked.
  const resume = setTimeout(() => {
    enqueueOutbox(runtime.documents, services).catch((error: unknown) =>
      runtime.logger.error({ err: error }, 'the chatbot index work owed from before this start could not be queued'),
    );
  }, OUTBOX_RESUME_DELAY_MS);
  resume.unref();
  return {
    checkScheduledPosts,
    stop: () => {
      clearInterval(timer);
      clearTimeout(resume);
      tracker.stop();
    },
  };
}

/**
 * The models the index holds besides the embedder's (services.indexModels). After an upgrade the
 * collection is read again (`upgrade`), the earlier model's chunks searched by their words
 * meanwhile; chunks the embedder cannot search at all (another dimension) are cleared first, as
 * the new model's could not go beside them.
 */
async function heldModels(runtime: ModuleRuntime, services: ChatbotServices): Promise<{ upgrade: boolean }> {
  const { earlier, unsearchable } = await services.indexModels.refresh(services);
  if (unsearchable.length > 0) {
    runtime.logger.warn(
      { models: unsearchable, model: services.embedder.model },
      'the vector index holds chunks of another kind of model: it is cleared and the collection read again',
    );
    await services.vectorIndex.clear();
  } else if (earlier.length > 0) {
    runtime.logger.info(
      { models: earlier, model: services.embedder.model },
      "the vector index holds an earlier model's chunks: they are searched by their words while the collection is read again",
    );
  }
  return { upgrade: earlier.length + unsearchable.length > 0 };
}
