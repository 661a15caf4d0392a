import { sessionKey, type SessionStore } from './port.js';

interface WarnLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * Logout always ends the session. A removal the store refuses (a full disk under the embedded
 * store, Redis away) is kept here: this process refuses the session's token from that moment,
 * and the removal is retried every `retryMs` until the store takes it, and once more on close.
 * Logged once per run of refusals, not once per logout.
 */
export class RevocableSessionStore implements SessionStore {
  /** Sessions ended here whose removal the store has still to take, by session key. */
  private readonly pending = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly inner: SessionStore,
    private readonly logger: WarnLogger,
    private readonly retryMs = 1000,
  ) {}

  create(userId: number): Promise<string> {
    return this.inner.create(userId);
  }

  async userIdFor(token: string): Promise<number | null> {
    if (this.pending.has(sessionKey(token))) return null;
    return this.inner.userIdFor(token);
  }

  async destroy(token: string): Promise<void> {
    const key = sessionKey(token);
    this.pending.set(key, token);
    try {
      await this.inner.destroy(token);
      this.pending.delete(key);
    } catch (error) {
      if (this.timer === null)
        this.logger.warn(
          { err: error },
          'the session store refused to remove an ended session: it is refused here, and its removal retried',
        );
      this.retryLater();
    }
  }

  /** Ended sessions whose removal the store has still to take. */
  get pendingRemovals(): number {
    return this.pending.size;
  }

  private retryLater(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.retry(), this.retryMs);
    this.timer.unref();
  }

  /** Gives the store the removals it refused; stops at the first it still refuses. */
  private async retry(): Promise<void> {
    for (const [key, token] of [...this.pending]) {
      try {
        await this.inner.destroy(token);
      } catch {
        return;
      }
      this.pending.delete(key);
    }
    if (this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
      this.logger.info({}, 'the session store took the removals of the sessions ended meanwhile');
    }
  }

  async close(): Promise<void> {
    await this.retry();
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.inner.close();
  }
}
