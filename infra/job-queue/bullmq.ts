import { createHash } from 'node:crypto';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { DependencyUnavailableError } from '../errors.js';
import {
  JobFailedError,
  PermanentJobError,
  type EnqueueOptions,
  type JobHandler,
  type JobQueue,
  type WorkerOptions,
} from './port.js';

const DEPENDENCY = 'Redis';
const DRAIN_POLL_MS = 50;
/** Jobs not finished yet: what drain waits for and what a jobId dedupes against. */
const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused'] as const;

export interface BullMqJobQueueOptions {
  url: string;
  /** Namespaces every key, so tests (and several apps on one Redis) do not see each other's jobs. */
  prefix?: string;
  connectTimeoutMs?: number;
  /** Connection errors are retried by the clients; this only reports them. */
  onError?: (error: Error) => void;
}

/**
 * The key prefix of one deployment. Jobs act on files in the data directory, so the instances
 * that share a data directory (a shared volume) share queues, and apps with different ones on the
 * same Redis (parallel test servers, say) never take each other's jobs.
 */
export function queuePrefixFor(dataDir: string): string {
  return `collections-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`;
}

/** Host, port, credentials, database and TLS from a redis:// or rediss:// URL. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** ioredis reports a closed or unreachable connection with plain Errors; these are their messages. */
function isConnectionError(error: unknown): boolean {
  const message = messageOf(error);
  return /enableOfflineQueue|Connection is closed|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|connect ETIMEDOUT|Reached the max retries/i.test(message);
}

/**
 * The production job queue: BullMQ on Redis. Producers fail fast when Redis is away (no offline
 * queue); workers and queue events use blocking connections that retry forever, as BullMQ wants.
 * Results and job data travel through Redis as JSON.
 */
export class BullMqJobQueue implements JobQueue {
  private readonly queues = new Map<string, Queue>();
  private readonly queueEvents = new Map<string, Promise<QueueEvents>>();
  private readonly workers: Worker[] = [];
  private closed = false;

  private constructor(
    private readonly options: BullMqJobQueueOptions,
    private readonly connection: RedisOptions,
    private readonly producer: Redis,
  ) {}

  /** Connects once before returning, so an unreachable Redis fails start-up instead of hanging. */
  static async connect(options: BullMqJobQueueOptions): Promise<BullMqJobQueue> {
    const connection: RedisOptions = { ...redisOptionsFromUrl(options.url), connectTimeout: options.connectTimeoutMs ?? 3000 };
    const producer = new Redis({
      ...connection,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    const report = options.onError ?? (() => undefined);
    producer.on('error', report);
    try {
      await producer.connect();
      await producer.ping();
    } catch {
      producer.disconnect();
      throw new DependencyUnavailableError(DEPENDENCY);
    }
    return new BullMqJobQueue(options, connection, producer);
  }

  private reportError = (error: Error): void => {
    this.options.onError?.(error);
  };

  private queue(name: string): Queue {
    if (this.closed) throw new Error('Job queue is closed.');
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.producer, prefix: this.options.prefix });
      queue.on('error', this.reportError);
      this.queues.set(name, queue);
    }
    return queue;
  }

  private events(name: string): Promise<QueueEvents> {
    let events = this.queueEvents.get(name);
    if (!events) {
      const created = new QueueEvents(name, { connection: this.connection, prefix: this.options.prefix });
      created.on('error', this.reportError);
      events = created.waitUntilReady().then(() => created);
      events.catch(() => this.queueEvents.delete(name));
      this.queueEvents.set(name, events);
    }
    return events;
  }

  private jobOptions(options: EnqueueOptions): JobsOptions {
    return {
      ...(options.jobId ? { jobId: options.jobId } : {}),
      attempts: Math.max(1, options.attempts ?? 1),
      backoff: { type: 'exponential', delay: options.backoffMs ?? 100 },
      // Finished jobs are kept a while for inspection; add() replaces them (see enqueue).
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600, count: 1000 },
    };
  }

  /**
   * A jobId dedupes only against a job that has not finished yet, as in the embedded queue:
   * BullMQ would also ignore ids of finished jobs it still keeps, so those are removed first.
   */
  private async enqueue<Data>(name: string, data: Data, options: EnqueueOptions): Promise<Job> {
    const queue = this.queue(name);
    try {
      if (options.jobId) {
        const state = await queue.getJobState(options.jobId);
        if (state === 'completed' || state === 'failed') await queue.remove(options.jobId);
      }
      return await queue.add(name, data, this.jobOptions(options));
    } catch (error) {
      if (isConnectionError(error) || this.producer.status !== 'ready') throw new DependencyUnavailableError(DEPENDENCY);
      throw error;
    }
  }

  async add<Data>(queue: string, data: Data, options: EnqueueOptions = {}): Promise<string> {
    const job = await this.enqueue(queue, data, options);
    return job.id as string;
  }

  async addAndWait<Data, Result>(queue: string, data: Data, options: EnqueueOptions & { timeoutMs?: number } = {}): Promise<Result> {
    // Listening starts before the job is added, so its completion cannot slip past.
    const events = await this.events(queue);
    const job = await this.enqueue(queue, data, options);
    try {
      return (await job.waitUntilFinished(events, options.timeoutMs)) as Result;
    } catch (error) {
      throw new JobFailedError(messageOf(error));
    }
  }

  async process<Data, Result>(queue: string, handler: JobHandler<Data, Result>, options: WorkerOptions = {}): Promise<void> {
    if (this.closed) throw new Error('Job queue is closed.');
    const worker = new Worker<Data, Result>(
      queue,
      async (job) => {
        try {
          return await handler(job.data, { id: job.id as string, attemptsMade: job.attemptsMade });
        } catch (error) {
          if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
          throw error;
        }
      },
      { connection: this.connection, prefix: this.options.prefix, concurrency: Math.max(1, options.concurrency ?? 1) },
    );
    worker.on('error', this.reportError);
    this.workers.push(worker);
    await worker.waitUntilReady();
  }

  async drain(queue: string): Promise<void> {
    const target = this.queue(queue);
    for (;;) {
      const counts = await target.getJobCounts(...UNFINISHED);
      if (Object.values(counts).every((n) => n === 0)) return;
      if (this.closed) return;
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  /** Lets running jobs finish, then closes workers, listeners, queues and the producer connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.workers.map((worker) => worker.close()));
    const events = await Promise.allSettled([...this.queueEvents.values()]);
    await Promise.all(events.map((e) => (e.status === 'fulfilled' ? e.value.close() : undefined)));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await this.producer.quit().catch(() => this.producer.disconnect());
  }
}
