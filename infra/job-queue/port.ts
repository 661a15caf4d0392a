import type { CronSchedule } from '../schedule/cron.js';

export interface JobContext {
  id: string;
  /** Attempts already made before this one. */
  attemptsMade: number;
  /** The run of the schedule a scheduled job was made for (JobQueue.schedule); absent for added jobs. */
  scheduledFor?: Date;
}

export type JobHandler<Data, Result> = (data: Data, job: JobContext) => Promise<Result>;

export interface EnqueueOptions {
  /** A stable id makes enqueueing idempotent: a second add with the same id is ignored. */
  jobId?: string;
  attempts?: number;
  backoffMs?: number;
}

export interface WorkerOptions {
  concurrency?: number;
}

/** Thrown by a job handler when retrying cannot help (BullMQ's UnrecoverableError). */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/** The job failed after its last attempt; message is the handler's error message. */
export class JobFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailedError';
  }
}

/** What one queue holds, as far as the adapter can tell (/health). */
export interface QueueBacklog {
  queue: string;
  waiting: number;
  active: number;
  /** Jobs that failed after their last attempt (since the start, for the in-process queue). */
  failed: number;
}

export interface JobQueue {
  /**
   * Whether jobs outlive this process (BullMQ keeps them in Redis, where another process may be
   * running one); the in-process queue's jobs die with it.
   */
  readonly durable: boolean;
  add<Data>(queue: string, data: Data, options?: EnqueueOptions): Promise<string>;
  /** Enqueues and resolves with the handler's result once the job finished, or rejects with JobFailedError. */
  addAndWait<Data, Result>(
    queue: string,
    data: Data,
    options?: EnqueueOptions & { timeoutMs?: number },
  ): Promise<Result>;
  /**
   * Runs `handler` on each job of `queue`. The data is what this application's own code added
   * (BullMQ keeps it in Redis as JSON), so it is handed over with the type it was added with, unchecked.
   */
  process<Data, Result>(queue: string, handler: JobHandler<Data, Result>, options?: WorkerOptions): Promise<void>;
  /**
   * Adds a job with `data` to `queue` at every run of `schedule`, one job per run whatever the
   * number of processes sharing the queue; null removes the scheduler of that id. Calling it
   * again replaces the schedule (no second scheduler). BullMQ keeps the scheduler in Redis (a
   * run missed while no worker was up is run once when one is back); the in-process queue keeps
   * a timer in this process, read against its clock (a run missed while it was down is not run).
   */
  schedule<Data>(queue: string, schedulerId: string, schedule: CronSchedule | null, data: Data): Promise<void>;
  /** Resolves when every job added so far has finished (tests and read-your-writes of indexing). */
  drain(queue: string): Promise<void>;
  /** The backlog of every queue this process has used; adapters that cannot tell leave it out. */
  backlog?(): Promise<QueueBacklog[]>;
  /** Resolves when the queue's server answers; absent for a queue in this process. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
