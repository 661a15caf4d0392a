import type { TaskProgress } from '../../infra/background-tasks.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { resourceKey, type ResourceType } from '../../infra/vector-index/port.js';
import { chatbotBlogPosts, indexOutbox, outboxMark, type ResourceRef } from '../../contracts/chatbot/documents.js';
import { items, mediaDocs, sitePages } from '../../contracts/platform/documents.js';
import { idPages } from './id-pages.js';

/**
 * Resources read and queued at a time. A page costs a few milliseconds of SQLite and enqueueing,
 * then requests waiting on the event loop go first.
 */
export const CATCH_UP_PAGE = 500;

/** The name /health lists the catch-up under. */
export const INDEX_CATCH_UP_TASK = 'chatbot-index-catch-up';

/** Every kind of resource the index holds, with the read model listing it. */
const SOURCES: readonly [ResourceType, (documents: DocumentStore) => Parameters<typeof idPages>[0]][] = [
  ['item', items],
  ['media', mediaDocs],
  ['site_page', sitePages],
  ['blog_post', chatbotBlogPosts],
];

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Refills a vector index that holds nothing (a new or deleted file, or one that does not persist)
 * from the read models: a background task started once the server listens (infra/background-tasks.ts),
 * never awaited by the start. Resources are read and queued a page at a time with a turn of the
 * event loop between pages; the index jobs themselves run one at a time, each from its own turn
 * (infra/job-queue/in-process.ts). Progress: `done` counts the resources whose index job has ended.
 *
 * With a durable queue (BullMQ) the jobs may run in another process and outlive this one: the
 * task then ends once everything is queued, and the queue's backlog in /health shows the rest.
 */
export class IndexCatchUp {
  private readonly owed = new Set<string>();
  private progress: TaskProgress | null = null;
  private allQueued = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly documents: DocumentStore,
    private readonly indexing: { enqueue(ref: ResourceRef): Promise<void> },
    private readonly waitForJobs: boolean,
  ) {}

  async run(progress: TaskProgress, signal: AbortSignal): Promise<void> {
    this.progress = progress;
    let total = 0;
    for (const [, collection] of SOURCES) total += await collection(this.documents).count();
    progress.setTotal(total);
    let queued = 0;
    for (const [type, collection] of SOURCES) {
      for await (const ids of idPages(collection(this.documents), CATCH_UP_PAGE)) {
        if (signal.aborted) return;
        // Marked as owed, as a change would be (one write for the page): /health and the reindex CLI count what is left from the marks.
        const marked = new Set(
          (
            await indexOutbox(this.documents).find(
              { _id: { $in: ids.map((id) => resourceKey(type, id)) } },
              { fields: ['id'] },
            )
          ).map((mark) => mark._id),
        );
        const unmarked = ids.filter((id) => !marked.has(resourceKey(type, id)));
        if (unmarked.length > 0)
          await indexOutbox(this.documents).putMany(unmarked.map((id) => outboxMark({ type, id }, 0)));
        for (const id of ids) {
          const ref = { type, id };
          if (this.waitForJobs) this.owed.add(resourceKey(type, id));
          await this.indexing.enqueue(ref);
        }
        queued += ids.length;
        await nextTurn();
      }
    }
    // What was listed, rather than the count before: documents come and go meanwhile.
    progress.setTotal(queued);
    if (!this.waitForJobs) {
      progress.advance(queued);
      return;
    }
    this.allQueued = true;
    if (this.owed.size === 0 || signal.aborted) return;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** The worker calls this when a resource's index job has ended, however it ended. */
  ended(ref: ResourceRef): void {
    if (!this.owed.delete(resourceKey(ref.type, ref.id))) return;
    this.progress?.advance();
    if (this.allQueued && this.owed.size === 0) this.wake?.();
  }
}
