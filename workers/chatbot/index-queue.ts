import { DependencyUnavailableError } from '../../infra/errors.js';
import type { JobQueue } from '../../infra/job-queue/port.js';
import { resourceKey } from '../../infra/vector-index/port.js';
import type { ResourceRef } from '../../contracts/chatbot/documents.js';

export const INDEX_QUEUE = 'chatbot-index';
/**
 * Jobs that give a resource indexed with stand-in vectors (its words) the model's vectors: a
 * queue of its own, so that index jobs, which take milliseconds, never wait behind the model.
 */
export const EMBED_QUEUE = 'chatbot-embed';

/** Retries of postponed jobs start after this and back off, doubling, to the maximum. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface IndexSchedulerLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Enqueues index jobs so that repeats collapse: while a resource's job waits, further changes
 * add nothing (the job reads the state when it runs). Once it has started, a change enqueues a
 * new job, so a change made during a run is never lost.
 *
 * When the job queue is unavailable (Redis away) an index job is postponed rather than lost or
 * waited for: enqueue returns at once, so projections and the writes waiting on them go on, and
 * the postponed jobs are enqueued again in the background until the queue takes them.
 */
export class IndexScheduler {
  private readonly waiting = new Set<string>();
  private readonly postponed = new Map<string, ResourceRef>();
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs = RETRY_FIRST_MS;
  private stopped = false;

  constructor(
    private readonly jobs: JobQueue,
    private readonly logger?: IndexSchedulerLogger,
    private readonly queue: string = INDEX_QUEUE,
  ) {}

  async enqueue(ref: ResourceRef): Promise<void> {
    const key = resourceKey(ref.type, ref.id);
    if (this.waiting.has(key)) return;
    // The queue is known to be away: no need to ask it again for every change.
    if (this.postponed.size > 0 || this.retryTimer) {
      this.postpone(key, ref);
      return;
    }
    try {
      await this.add(key, ref);
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      this.logger?.warn({ err: error }, 'chatbot index jobs cannot be queued; they are postponed and retried');
      this.postpone(key, ref);
    }
  }

  /** The worker calls this as it starts a job: from now on a change needs a new job. */
  started(ref: ResourceRef): void {
    this.waiting.delete(resourceKey(ref.type, ref.id));
  }

  /** Resources whose index job waits for the queue to come back. */
  get postponedCount(): number {
    return this.postponed.size;
  }

  /** Stops retrying postponed jobs (the runtime is closing). */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private async add(key: string, ref: ResourceRef): Promise<void> {
    this.waiting.add(key);
    try {
      // No jobId: `waiting` already dedupes, and a jobId would make BullMQ look the id up first.
      await this.jobs.add<ResourceRef>(this.queue, { type: ref.type, id: ref.id }, { attempts: 3, backoffMs: 500 });
    } catch (error) {
      this.waiting.delete(key);
      throw error;
    }
  }

  private postpone(key: string, ref: ResourceRef): void {
    this.postponed.set(key, ref);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => void this.retryPostponed(), this.retryDelayMs);
    this.retryTimer.unref();
  }

  private async retryPostponed(): Promise<void> {
    const batch = [...this.postponed];
    this.postponed.clear();
    for (let i = 0; i < batch.length; i++) {
      const [key, ref] = batch[i];
      if (this.stopped) return;
      if (this.waiting.has(key)) continue;
      try {
        await this.add(key, ref);
      } catch (error) {
        if (error instanceof DependencyUnavailableError) {
          // Still away: keep this one and the rest (and whatever was postponed meanwhile), back off.
          for (const [restKey, restRef] of batch.slice(i))
            if (!this.postponed.has(restKey)) this.postponed.set(restKey, restRef);
          this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
          this.retryTimer = null;
          this.scheduleRetry();
          return;
        }
        this.logger?.error({ err: error, resource: key }, 'a postponed chatbot index job could not be queued; dropped');
      }
    }
    this.logger?.info({ count: batch.length }, 'postponed chatbot index jobs queued');
    this.retryDelayMs = RETRY_FIRST_MS;
    this.retryTimer = null;
    // Changes postponed while this batch was being queued.
    if (this.postponed.size > 0) this.scheduleRetry();
  }
}
