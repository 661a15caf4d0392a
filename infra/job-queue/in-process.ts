import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock/port.js';
import { Fifo } from '../fifo.js';
import { nextRun, type CronSchedule } from '../schedule/cron.js';
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

interface PendingJob {
  id: string;
  data: unknown;
  attempts: number;
  backoffMs: number;
  attemptsMade: number;
  scheduledFor?: Date;
  /** Callers of addAndWait; null for the (usual) job nobody waits on. */
  settle: { resolve(result: unknown): void; reject(error: Error): void }[] | null;
}

interface QueueState {
  waiting: Fifo<PendingJob>;
  active: number;
  /** Unfinished jobs by the jobId they were given, for deduping. */
  known: Map<string, PendingJob>;
  /** Every job not finished yet (waiting, running or backing off), given an id or not. */
  unfinished: number;
  handler?: JobHandler<unknown, unknown>;
  concurrency: number;
  idleWaiters: (() => void)[];
  /** Jobs that failed after their last attempt, for /health. */
  failed: number;
  /** A pump waits for the next check phase of the event loop: at most one at a time. */
  pumpScheduled: boolean;
}

/** setTimeout's longest delay (about 24.8 days); a later run is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The embedded job queue: same contract as the BullMQ adapter, jobs run in this process. */
export class InProcessJobQueue implements JobQueue {
  readonly durable = false;
  private readonly queues = new Map<string, QueueState>();
  /** The timer of each schedule, by scheduler id. */
  private readonly schedules = new Map<string, NodeJS.Timeout>();
  private readonly clock: Clock;
  private closed = false;
  /** Prefix of the counter ids, so ids of two queue instances never meet (in logs, say). */
  private readonly instance = randomUUID().slice(0, 8);
  private counter = 0;

  /** `clock`: what the schedules' timers measure their delays against (tests pass a FixedClock). */
  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
  }

  private state(name: string): QueueState {
    let state = this.queues.get(name);
    if (!state) {
      state = {
        waiting: new Fifo<PendingJob>(),
        active: 0,
        known: new Map(),
        unfinished: 0,
        concurrency: 1,
        idleWaiters: [],
        failed: 0,
        pumpScheduled: false,
      };
      this.queues.set(name, state);
    }
    return state;
  }

  private enqueue(queue: string, data: unknown, options: EnqueueOptions, scheduledFor?: Date): PendingJob {
    const state = this.state(queue);
    const existing = options.jobId ? state.known.get(options.jobId) : undefined;
    if (existing) return existing;
    // Without a given id, a counter names the job: jobs live only in this process, and a
    // start-up backlog of index jobs is a hundred thousand of them.
    const job: PendingJob = {
      id: options.jobId ?? `${this.instance}:${(this.counter += 1)}`,
      data,
      attempts: Math.max(1, options.attempts ?? 1),
      backoffMs: options.backoffMs ?? 100,
      attemptsMade: 0,
      scheduledFor,
      settle: null,
    };
    if (options.jobId) state.known.set(job.id, job);
    state.unfinished += 1;
    state.waiting.push(job);
    this.schedulePump(queue, state);
    return job;
  }

  async add<Data>(queue: string, data: Data, options: EnqueueOptions = {}): Promise<string> {
    if (this.closed) throw new Error('Job queue is closed.');
    return this.enqueue(queue, data, options).id;
  }

  addAndWait<Data, Result>(
    queue: string,
    data: Data,
    options: EnqueueOptions & { timeoutMs?: number } = {},
  ): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('Job queue is closed.'));
    const job = this.enqueue(queue, data, options);
    return new Promise<Result>((resolve, reject) => {
      const timer = options.timeoutMs
        ? setTimeout(() => reject(new JobFailedError(`Job ${job.id} did not finish in time.`)), options.timeoutMs)
        : undefined;
      (job.settle ??= []).push({
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result as Result);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  async process<Data, Result>(
    queue: string,
    handler: JobHandler<Data, Result>,
    options: WorkerOptions = {},
  ): Promise<void> {
    const state = this.state(queue);
    state.handler = handler as JobHandler<unknown, unknown>;
    state.concurrency = Math.max(1, options.concurrency ?? 1);
    this.schedulePump(queue, state);
  }

  /**
   * Jobs start from the event loop's check phase (setImmediate), never from the microtasks of
   * whoever enqueued or finished one, and one pump at most waits for it: so each turn of the loop
   * starts at most `concurrency` jobs, and requests, timers and I/O callbacks run between turns.
   * A pump per enqueue or per finished job (as there was) made chains that each started a job
   * every turn: a backlog of 40,000 index jobs ran hundreds of them in one turn, and the loop
   * stood still for seconds (issue 36: the plugins' registration outlasted its 10 s timeout).
   */
  private schedulePump(queue: string, state: QueueState): void {
    if (state.pumpScheduled || this.closed) return;
    state.pumpScheduled = true;
    setImmediate(() => {
      state.pumpScheduled = false;
      this.pump(queue);
    });
  }

  private pump(queue: string): void {
    const state = this.state(queue);
    if (!state.handler || this.closed) return;
    while (state.active < state.concurrency && state.waiting.length > 0) {
      const job = state.waiting.take() as PendingJob;
      state.active += 1;
      void this.run(queue, state, job);
    }
    // A job backing off between attempts is neither waiting nor active, yet not finished.
    if (state.active === 0 && state.waiting.length === 0 && state.unfinished === 0) {
      const waiters = state.idleWaiters.splice(0);
      for (const wake of waiters) wake();
    }
  }

  private async run(queue: string, state: QueueState, job: PendingJob): Promise<void> {
    const handler = state.handler as JobHandler<unknown, unknown>;
    try {
      const result = await handler(job.data, {
        id: job.id,
        attemptsMade: job.attemptsMade,
        ...(job.scheduledFor ? { scheduledFor: job.scheduledFor } : {}),
      });
      this.finished(state, job);
      for (const waiter of job.settle ?? []) waiter.resolve(result);
    } catch (error) {
      job.attemptsMade += 1;
      const permanent = error instanceof PermanentJobError;
      if (!permanent && job.attemptsMade < job.attempts && !this.closed) {
        setTimeout(() => {
          state.waiting.push(job);
          this.schedulePump(queue, state);
        }, job.backoffMs * job.attemptsMade);
      } else {
        this.finished(state, job);
        state.failed += 1;
        const message = errorMessage(error);
        for (const waiter of job.settle ?? []) waiter.reject(new JobFailedError(message));
      }
    } finally {
      state.active -= 1;
      // The next job starts from the next turn: jobs whose work never waits on I/O (local
      // embedding of a large backlog) would otherwise chain through microtasks and starve HTTP,
      // timers and the projections until the whole backlog was done.
      this.schedulePump(queue, state);
    }
  }

  private finished(state: QueueState, job: PendingJob): void {
    if (state.known.get(job.id) === job) state.known.delete(job.id);
    state.unfinished -= 1;
  }

  async schedule<Data>(queue: string, schedulerId: string, schedule: CronSchedule | null, data: Data): Promise<void> {
    if (this.closed) throw new Error('Job queue is closed.');
    clearTimeout(this.schedules.get(schedulerId));
    this.schedules.delete(schedulerId);
    if (schedule) this.armSchedule(queue, schedulerId, schedule, data, this.clock.now());
  }

  /**
   * Waits for the first run after `after` by the clock, adds its job, and waits for the next.
   * Runs that passed while the process was busy or asleep are not made up: the next one after
   * the clock's time is waited for.
   */
  private armSchedule(queue: string, schedulerId: string, schedule: CronSchedule, data: unknown, after: Date): void {
    const run = nextRun(schedule, after);
    const wait = () => {
      const remaining = run.getTime() - this.clock.now().getTime();
      const timer =
        remaining > MAX_TIMER_MS
          ? setTimeout(wait, MAX_TIMER_MS)
          : setTimeout(
              () => {
                if (this.closed) return;
                this.enqueue(queue, data, { jobId: `${schedulerId}:${run.toISOString()}` }, run);
                const now = this.clock.now();
                this.armSchedule(queue, schedulerId, schedule, data, now > run ? now : run);
              },
              Math.max(0, remaining),
            );
      // A schedule alone does not keep the process alive.
      timer.unref();
      this.schedules.set(schedulerId, timer);
    };
    wait();
  }

  drain(queue: string): Promise<void> {
    const state = this.state(queue);
    if (state.active === 0 && state.waiting.length === 0 && state.unfinished === 0) return Promise.resolve();
    return new Promise((resolve) => state.idleWaiters.push(resolve));
  }

  async backlog(): Promise<QueueBacklog[]> {
    return [...this.queues].map(([queue, state]) => ({
      queue,
      waiting: state.waiting.length,
      active: state.active,
      failed: state.failed,
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.schedules.values()) clearTimeout(timer);
    this.schedules.clear();
    for (const state of this.queues.values()) {
      for (const wake of state.idleWaiters.splice(0)) wake();
    }
  }
}
