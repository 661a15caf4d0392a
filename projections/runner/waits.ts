import { DependencyUnavailableError } from '../../infra/errors.js';

interface Waiter {
  position: number;
  /** Date.now() past which it is refused. */
  deadline: number;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Read-your-writes waits: each resolves once the read models have passed a log position, and is
 * refused (DependencyUnavailableError, a 503) at its deadline. One timer serves every waiter's
 * deadline, armed while any waits: a create would otherwise set and clear its own.
 */
export class ReadYourWritesWaits {
  private waiters: Waiter[] = [];
  private deadlineTimer: NodeJS.Timeout | null = null;
  private armedDeadline = Number.POSITIVE_INFINITY;

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
    });
  }

  /** Refuses the waiters whose deadline has passed, and arms the timer for the next deadline. */
  private expire(): void {
    this.deadlineTimer = null;
    this.armedDeadline = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.deadline <= now) waiter.reject(new DependencyUnavailableError('read models', 'Read models did not catch up in time.'));
      else still.push(waiter);
    }
    this.waiters = still;
    if (still.length > 0) this.armDeadline(still.reduce((soonest, waiter) => Math.min(soonest, waiter.deadline), Number.POSITIVE_INFINITY));
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
