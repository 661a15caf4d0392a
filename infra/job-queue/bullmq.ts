import type { EventEmitter } from 'node:events';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { DependencyUnavailableError } from '../errors.js';
import type { CronSchedule } from '../schedule/cron.js';
import {
  JobFailedError,
  PermanentJobError,
  type EnqueueOptions,
  type JobHandler,
  type JobQueue,
  type QueueBacklog,
  type WorkerOptions,
} from './port.js';
import { errorMessage } from '../../infra/errors.js';

const DEPENDENCY = 'Redis';
const DRAIN_POLL_MS = 50;
/** Jobs not finished yet: what drain waits for and what a jobId dedupes against. */
const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'paused'] as const;
/** The same connection error, repeated by every reconnect attempt, is reported once per this long. */
const REPEATED_ERROR_QUIET_MS = 30_000;
/** How long close() lets clients say goodbye to a Redis that is away before dropping them. */
const CLOSE_WHILE_DOWN_MS = 2_000;

export interface BullMqJobQueueOptions {
  url: string;
  /** Namespaces every key, so tests (and several apps on one Redis) do not see each other's jobs. */
  prefix?: string;
  /** Bounds a connection attempt, and how long connect() waits for the first one. */
  connectTimeoutMs?: number;
  /** Bounds one producer command, so a request never waits long on a Redis that stopped answering. */
  commandTimeoutMs?: number;
  /** Connection errors are retried by the clients; this only reports them (once per outage, not per retry). */
  onError?: (error: Error) => void;
  /** Redis answers again after an outage. */
  onRecovered?: () => void;
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

/**
 * Reconnect every 2 s at most: BullMQ's own default backs off to 20 s, which would keep the
 * workers idle that long after Redis came back.
 */
function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 200, 2_000);
}

/**
 * BullMQ refuses custom job ids that contain ':' or look like integers (its own ids are
 * integers); the port allows any string. Ids are escaped on the way in and restored on the way
 * out, so callers and handlers only ever see the id they gave.
 */
export function toBullMqJobId(id: string): string {
  const escaped = id.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));
  return /^-?\d+$/.test(escaped) || `${parseInt(escaped, 10)}` === escaped ? `%N${escaped}` : escaped;
}

export function fromBullMqJobId(id: string): string {
  return id.replace(/^%N/, '').replace(/%25|%3A/g, (c) => (c === '%25' ? '%' : ':'));
}

/** ioredis reports a closed or unreachable connection with plain Errors; these are their messages. */
function isConnectionError(error: unknown): boolean {
  const message = errorMessage(error);
  return /enableOfflineQueue|Connection is closed|Command timed out|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|EPIPE|Reached the max retries/i.test(
    message,
  );
}

function unavailable(): DependencyUnavailableError {
  return new DependencyUnavailableError(DEPENDENCY);
}

/** Settles like `promise`, or rejects with `onTimeout()` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Waits for `promise` at most `ms`; never rejects (for best-effort clean-up). */
async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  await within(promise, ms, () => new Error('gave up')).catch(() => undefined);
}

/**
 * Closes a BullMQ queue, worker or queue events, and then listens to its connections' errors
 * again, dropping them. BullMQ's close removes every listener of a connection while the
 * connection's initialisation may still fail afterwards (Redis away: its client ends when
 * disconnected), and that failure is emitted as an 'error' no one hears: an uncaught exception
 * (taskforcesh/bullmq#3546, open in 5.81).
 */
export function closeQuietly(closable: Queue | Worker | QueueEvents, close: () => Promise<void>): Promise<void> {
  return close().finally(() => {
    // `connection` (every BullMQ client) and `blockingConnection` (a worker's) are protected fields.
    const fields = closable as unknown as Partial<Record<'connection' | 'blockingConnection', EventEmitter>>;
    for (const connection of [fields.connection, fields.blockingConnection]) connection?.on('error', () => undefined);
  });
}

/** Resolves when the client is ready or after `ms`, whichever comes first; never rejects. */
function readyOrGaveUp(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once('ready', done);
  });
}

/**
 * The production job queue: BullMQ on Redis. Redis may be away at start and may go away and come
 * back at any time: producers then fail within seconds with DependencyUnavailableError (no offline
 * queue, bounded commands), while workers and queue events use blocking connections that
 * reconnect on their own and resume. Results and job data travel through Redis as JSON.
 */
export class BullMqJobQueue implements JobQueue {
  readonly durable = true;
  private readonly queues = new Map<string, Queue>();
  private readonly queueEvents = new Map<string, Promise<QueueEvents>>();
  /** The queue events' own connections, so close() can drop them even if Redis never answered. */
  private readonly eventConnections: Redis[] = [];
  private readonly workers: Worker[] = [];
  private closed = false;
  private down = false;
  private lastReported: { message: string; at: number } | null = null;
  /** Waits for job outcomes, told when the producer connection drops (one listener for them all). */
  private readonly onConnectionLost = new Set<() => void>();

  private constructor(
    private readonly options: BullMqJobQueueOptions,
    private readonly connection: RedisOptions,
    private readonly producer: Redis,
  ) {
    producer.on('error', this.reportError);
    producer.on('close', () => {
      if (!this.closed) this.down = true;
      for (const lost of [...this.onConnectionLost]) lost();
    });
    producer.on('ready', () => {
      if (this.down && !this.closed) this.options.onRecovered?.();
      this.down = false;
      this.lastReported = null;
    });
  }

  private get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? 3_000;
  }

  private get commandTimeoutMs(): number {
    return this.options.commandTimeoutMs ?? 2_000;
  }

  /**
   * Starts connecting and waits a moment for Redis, but never fails: with Redis away the server
   * still starts, answers what does not need Redis, and the queue works once Redis is back.
   */
  static async connect(options: BullMqJobQueueOptions): Promise<BullMqJobQueue> {
    const connection: RedisOptions = {
      ...redisOptionsFromUrl(options.url),
      connectTimeout: options.connectTimeoutMs ?? 3_000,
      retryStrategy: reconnectDelayMs,
    };
    const producer = new Redis({
      ...connection,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 2_000,
    });
    const queue = new BullMqJobQueue(options, connection, producer);
    await readyOrGaveUp(producer, queue.connectTimeoutMs);
    return queue;
  }

  /** Redis answers right now (the producer connection is up). */
  get available(): boolean {
    return this.producer.status === 'ready';
  }

  private reportError = (error: Error): void => {
    const now = Date.now();
    const last = this.lastReported;
    if (last && last.message === error.message && now - last.at < REPEATED_ERROR_QUIET_MS) return;
    this.lastReported = { message: error.message, at: now };
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

  /**
   * A Queue whose first use met a dropped connection may stay broken (BullMQ keeps its failed
   * initialisation), so it is replaced; the producer connection it shares stays open.
   */
  private forgetQueue(name: string): void {
    const queue = this.queues.get(name);
    if (!queue) return;
    this.queues.delete(name);
    void closeQuietly(queue, () => queue.close()).catch(() => undefined);
  }

  private events(name: string): Promise<QueueEvents> {
    let events = this.queueEvents.get(name);
    if (!events) {
      // Blocking reads: no per-command retry limit (BullMQ requires it), reconnecting on its own.
      const client = new Redis({ ...this.connection, maxRetriesPerRequest: null });
      client.on('error', this.reportError);
      this.eventConnections.push(client);
      const created = new QueueEvents(name, { connection: client, prefix: this.options.prefix });
      created.on('error', this.reportError);
      events = created.waitUntilReady().then(() => created);
      events.catch(() => this.queueEvents.delete(name));
      this.queueEvents.set(name, events);
    }
    return events;
  }

  private jobOptions(options: EnqueueOptions): JobsOptions {
    return {
      ...(options.jobId ? { jobId: toBullMqJobId(options.jobId) } : {}),
      attempts: Math.max(1, options.attempts ?? 1),
      backoff: { type: 'exponential', delay: options.backoffMs ?? 100 },
      // Finished jobs are kept a while for inspection; add() replaces them (see enqueue).
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600, count: 1000 },
    };
  }

  private refuseWhileDown(): void {
    if (this.closed) throw new Error('Job queue is closed.');
    if (!this.available) throw unavailable();
  }

  /**
   * A jobId dedupes only against a job that has not finished yet, as in the embedded queue:
   * BullMQ would also ignore ids of finished jobs it still keeps, so those are removed first.
   * Bounded as a whole: a Queue still initialising waits for Redis instead of failing.
   */
  private async enqueue<Data>(name: string, data: Data, options: EnqueueOptions): Promise<Job> {
    this.refuseWhileDown();
    const queue = this.queue(name);
    const adding = async () => {
      if (options.jobId) {
        const jobId = toBullMqJobId(options.jobId);
        const state = await queue.getJobState(jobId);
        if (state === 'completed' || state === 'failed') await queue.remove(jobId);
      }
      return queue.add(name, data, this.jobOptions(options));
    };
    try {
      return await within(adding(), this.commandTimeoutMs * 2, unavailable);
    } catch (error) {
      if (error instanceof DependencyUnavailableError || isConnectionError(error) || !this.available) {
        this.forgetQueue(name);
        throw unavailable();
      }
      throw error;
    }
  }

  async add<Data>(queue: string, data: Data, options: EnqueueOptions = {}): Promise<string> {
    const job = await this.enqueue(queue, data, options);
    return fromBullMqJobId(job.id as string);
  }

  async addAndWait<Data, Result>(
    queue: string,
    data: Data,
    options: EnqueueOptions & { timeoutMs?: number } = {},
  ): Promise<Result> {
    this.refuseWhileDown();
    // Listening starts before the job is added, so its completion cannot slip past.
    const events = await within(this.events(queue), this.connectTimeoutMs, unavailable);
    const job = await this.enqueue(queue, data, options);
    return this.outcomeOf<Result>(queue, job.id as string, events, options.timeoutMs);
  }

  /**
   * The job's result from its completion event. Unlike Job.waitUntilFinished this also gives up
   * when the connection to Redis drops (a Redis that comes back empty would never send the event)
   * and never leaves a rejection unhandled.
   */
  private outcomeOf<Result>(
    queueName: string,
    jobId: string,
    events: QueueEvents,
    timeoutMs?: number,
  ): Promise<Result> {
    // Per-job events (`completed:<id>`) are emitted by QueueEvents but not in its typed listener map.
    const emitter: EventEmitter = events;
    return new Promise<Result>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        emitter.off(`completed:${jobId}`, onCompleted);
        emitter.off(`failed:${jobId}`, onFailed);
        this.onConnectionLost.delete(onLost);
        outcome();
      };
      const onCompleted = (args: { returnvalue: unknown }) => finish(() => resolve(args.returnvalue as Result));
      const onFailed = (args: { failedReason: string }) => finish(() => reject(new JobFailedError(args.failedReason)));
      const onLost = () => finish(() => reject(unavailable()));
      const timer = timeoutMs
        ? setTimeout(() => finish(() => reject(new JobFailedError(`Job ${jobId} did not finish in time.`))), timeoutMs)
        : undefined;
      emitter.on(`completed:${jobId}`, onCompleted);
      emitter.on(`failed:${jobId}`, onFailed);
      this.onConnectionLost.add(onLost);
      // The job may have finished before the listeners were attached.
      this.finishedOutcome(queueName, jobId).then(
        (outcome) => {
          if (outcome?.state === 'completed') onCompleted({ returnvalue: outcome.value });
          else if (outcome?.state === 'failed') onFailed({ failedReason: outcome.reason });
        },
        () => onLost(),
      );
    });
  }

  /** The state first, then the record: a record read before the state may predate the result. */
  private async finishedOutcome(
    queueName: string,
    jobId: string,
  ): Promise<{ state: 'completed'; value: unknown } | { state: 'failed'; reason: string } | null> {
    const queue = this.queue(queueName);
    const state = await within(queue.getJobState(jobId), this.commandTimeoutMs * 2, unavailable);
    if (state !== 'completed' && state !== 'failed') return null;
    const job = await within(queue.getJob(jobId), this.commandTimeoutMs * 2, unavailable);
    if (!job) return null;
    return state === 'completed' ? { state, value: job.returnvalue } : { state, reason: job.failedReason };
  }

  /**
   * Starts a worker without waiting for Redis longer than a connection attempt: a worker
   * created while Redis is away starts processing once it is back.
   */
  async process<Data, Result>(
    queue: string,
    handler: JobHandler<Data, Result>,
    options: WorkerOptions = {},
  ): Promise<void> {
    if (this.closed) throw new Error('Job queue is closed.');
    const worker = new Worker<Data, Result>(
      queue,
      async (job) => {
        try {
          // A job scheduler's job carries the run it was made for as prevMillis.
          const run = job.repeatJobKey && job.opts.prevMillis ? { scheduledFor: new Date(job.opts.prevMillis) } : {};
          return await handler(job.data, {
            id: fromBullMqJobId(job.id as string),
            attemptsMade: job.attemptsMade,
            ...run,
          });
        } catch (error) {
          if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
          throw error;
        }
      },
      {
        connection: this.connection,
        prefix: this.options.prefix,
        concurrency: Math.max(1, options.concurrency ?? 1),
      },
    );
    worker.on('error', this.reportError);
    this.workers.push(worker);
    await atMost(worker.waitUntilReady(), this.available ? this.connectTimeoutMs * 3 : 0);
  }

  /**
   * BullMQ's job scheduler (upsertJobScheduler): Redis holds one scheduler per id and one
   * delayed job for its next run, so however many servers call this, one job is made per run.
   * Every start calls it again: the same id replaces the schedule rather than adding one.
   */
  async schedule<Data>(queue: string, schedulerId: string, schedule: CronSchedule | null, data: Data): Promise<void> {
    this.refuseWhileDown();
    const target = this.queue(queue);
    const work: Promise<unknown> = schedule
      ? target.upsertJobScheduler(
          schedulerId,
          { pattern: schedule.expression, tz: schedule.timezone },
          {
            name: queue,
            data,
            opts: {
              attempts: 1,
              removeOnComplete: { age: 3600, count: 1000 },
              removeOnFail: { age: 24 * 3600, count: 1000 },
            },
          },
        )
      : target.removeJobScheduler(schedulerId);
    try {
      await within(work, this.commandTimeoutMs * 2, unavailable);
    } catch (error) {
      if (error instanceof DependencyUnavailableError || isConnectionError(error) || !this.available) {
        this.forgetQueue(queue);
        throw unavailable();
      }
      throw error;
    }
  }

  async drain(queue: string): Promise<void> {
    for (;;) {
      if (this.closed) return;
      this.refuseWhileDown();
      const target = this.queue(queue);
      const counts = await within(target.getJobCounts(...UNFINISHED), this.commandTimeoutMs * 2, unavailable);
      if (Object.values(counts).every((n) => n === 0)) return;
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  /** Counts of every queue this process has added to or works on; refused within seconds while Redis is away. */
  async backlog(): Promise<QueueBacklog[]> {
    this.refuseWhileDown();
    const out: QueueBacklog[] = [];
    const names = new Set([...this.queues.keys(), ...this.workers.map((worker) => worker.name)]);
    for (const name of [...names].sort()) {
      const counts = await within(
        this.queue(name).getJobCounts('waiting', 'active', 'failed'),
        this.commandTimeoutMs * 2,
        unavailable,
      );
      out.push({ queue: name, waiting: counts.waiting ?? 0, active: counts.active ?? 0, failed: counts.failed ?? 0 });
    }
    return out;
  }

  async ping(): Promise<void> {
    this.refuseWhileDown();
    try {
      await within(this.producer.ping(), this.commandTimeoutMs * 2, unavailable);
    } catch (error) {
      // Redis stopped moments ago: the client refuses before this process has noticed the outage.
      if (error instanceof DependencyUnavailableError || isConnectionError(error) || !this.available)
        throw unavailable();
      throw error;
    }
  }

  /**
   * Lets running jobs finish, then closes workers, listeners, queues and the producer connection.
   * With Redis away nothing can be said goodbye to: the clients are dropped after a short wait.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const reachable = this.available;
    const bound = (closing: Promise<unknown>) =>
      reachable ? closing.catch(() => undefined) : atMost(closing, CLOSE_WHILE_DOWN_MS);
    await Promise.all(this.workers.map((worker) => bound(closeQuietly(worker, () => worker.close(!reachable)))));
    await Promise.all(
      [...this.queueEvents.values()].map((ready) =>
        atMost(
          ready.then((events) => closeQuietly(events, () => events.close())),
          CLOSE_WHILE_DOWN_MS,
        ),
      ),
    );
    for (const client of this.eventConnections) client.disconnect();
    await Promise.all([...this.queues.values()].map((queue) => bound(closeQuietly(queue, () => queue.close()))));
    if (this.producer.status === 'ready') await atMost(this.producer.quit(), CLOSE_WHILE_DOWN_MS);
    this.producer.disconnect();
  }
}
