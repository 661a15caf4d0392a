import { randomUUID } from 'node:crypto';
import type { JobQueue } from '../../infra/job-queue/port.js';
import { resourceKey } from '../../infra/vector-index/port.js';
import type { ResourceRef } from '../../projections/chatbot/index-jobs.js';

export const INDEX_QUEUE = 'chatbot-index';

/**
 * Enqueues index jobs so that repeats collapse: while a resource's job waits, further changes
 * add nothing (the job reads the state when it runs). Once it has started, a change enqueues a
 * new job, so a change made during a run is never lost.
 */
export class IndexScheduler {
  private readonly waiting = new Set<string>();

  constructor(private readonly jobs: JobQueue) {}

  async enqueue(ref: ResourceRef): Promise<void> {
    const key = resourceKey(ref.type, ref.id);
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    try {
      await this.jobs.add<ResourceRef>(INDEX_QUEUE, { type: ref.type, id: ref.id }, { jobId: `${key}:${randomUUID()}`, attempts: 3, backoffMs: 500 });
    } catch (error) {
      this.waiting.delete(key);
      throw error;
    }
  }

  /** The worker calls this as it starts a job: from now on a change needs a new job. */
  started(ref: ResourceRef): void {
    this.waiting.delete(resourceKey(ref.type, ref.id));
  }
}
