import { DependencyUnavailableError } from '../../infra/errors.js';

interface Waiter {
  position: number;
  /** Date.now() past which it is refused. */
  deadline: number;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * How often the read models' shared position is read while a write waits on it. A write on the
 * server folding the events is released by its own runner first (a few milliseconds), so only
 * the other servers' writes come to read it: each reads it at most this often, however many wait.
 */
export const SHARED_POLL_MS = 50;

/** Reads the log position the deployment's read models have passed (the floor's, runner/checkpoints.ts). */
export type SharedPosition = () => Promise<number>;

/**
 * Read-your-writes waits: each resolves once the read models have passed a log position, and is
 * refused (DependencyUnavailableError, a 503) at its deadline. One timer serves every waiter's
 * deadline, armed while any waits: a create would otherwise set and clear its own.
 *
 * The runner of this process releases them as it folds (release). When servers share the read
 * models and another's runner may fold the events (a Kafka consumer group: SharedPosition given),
 * the waits also follow the position saved with the read models, read every SHARED_POLL_MS while
 * any wait; without one (a single process, the embedded bus) nothing is read, as nothing else folds.
 */
export class ReadYourWritesWaits {
  private waiters: Waiter[] = [];
  private deadlineTimer: NodeJS.Timeout | null = null;
  private armedDeadline = Number.POSITIVE_INFINITY;
  private pollTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly shared: SharedPosition | null = null,
    private readonly onReadError: (error: unknown) => void = () => undefined,
  ) {}

  /** The read models have passed `position`: the waits up to it resolve. */
  release(position: number): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.position <= position) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
    if (still.length === 0) this.disarmDeadline();
  }

  /** Resolves once release() passes `position`; `passed` is where the read models are now. */
  waitFor(position: number, passed: number, timeoutMs: number): Promise<void> {
    if (position <= passed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      this.waiters.push({ position, deadline, resolve, reject });
      this.armDeadline(deadline);
      this.schedulePoll();
    });
  }

  /** Reads the shared position once SHARED_POLL_MS from now, while any waits. */
  private schedulePoll(): void {
    if (this.shared === null || this.pollTimer !== null || this.stopped) return;
    const read = this.shared;
    this.pollTimer = setTimeout(() => {
      void read().then(
        (position) => {
          this.pollTimer = null;
          this.release(position);
          if (this.waiters.length > 0) this.schedulePoll();
        },
        (error: unknown) => {
          // The deadline bounds the wait; the next read may answer.
          this.pollTimer = null;
          this.onReadError(error);
          if (this.waiters.length > 0) this.schedulePoll();
        },
      );
    }, SHARED_POLL_MS);
  }

  /** Reads the shared position again while any waits (the runner starts again after a stop). */
  start(): void {
    this.stopped = false;
    if (this.waiters.length > 0) this.schedulePoll();
  }

  /** Stops reading the shared position (the runner stops); the waits still end by their deadline. */
  stop(): void {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  /** Refuses the waiters whose deadline has passed, and arms the timer for the next deadline. */
  private expire(): void {
    this.deadlineTimer = null;
    this.armedDeadline = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.deadline <= now)
        waiter.reject(new DependencyUnavailableError('read models', 'Read models did not catch up in time.'));
      else still.push(waiter);
    }
    this.waiters = still;
    if (still.length > 0)
      this.armDeadline(still.reduce((soonest, waiter) => Math.min(soonest, waiter.deadline), Number.POSITIVE_INFINITY));
  }

  /** Makes the timer fire by `deadline` (it may fire sooner, for another waiter). */
  private armDeadline(deadline: number): void {
    if (deadline >= this.armedDeadline) return;
    this.disarmDeadline();
    this.armedDeadline = deadline;
    this.deadlineTimer = setTimeout(() => this.expire(), Math.max(0, deadline - Date.now()));
  }

  private disarmDeadline(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    this.armedDeadline = Number.POSITIVE_INFINITY;
  }
}
