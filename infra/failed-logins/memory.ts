import type { Clock } from '../clock/port.js';
import type { FailedLogins, FailureCount } from './port.js';

/** Windows kept before the ended ones are swept out. */
const SWEEP_ABOVE = 10_000;
/**
 * Windows kept at most: failures with made-up emails cost a caller nothing (no password hash is
 * checked), so past this the oldest windows are forgotten rather than the map growing for ever.
 */
const MAX_WINDOWS = 100_000;

/** Failed logins counted in this process (the embedded default). */
export class MemoryFailedLogins implements FailedLogins {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly windowSeconds: number,
    private readonly clock: Clock,
  ) {}

  async count(key: string): Promise<FailureCount> {
    const now = this.clock.now().getTime();
    const window = this.windows.get(key);
    if (!window || window.endsAt <= now) return { failures: 0, retryAfterSeconds: 0 };
    return { failures: window.failures, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) };
  }

  async record(key: string): Promise<void> {
    const now = this.clock.now().getTime();
    const window = this.windows.get(key);
    if (window && window.endsAt > now) {
      window.failures += 1;
      return;
    }
    if (this.windows.size >= SWEEP_ABOVE) {
      for (const [old, ended] of this.windows) if (ended.endsAt <= now) this.windows.delete(old);
    }
    // A Map keeps insertion order, and a window is inserted when it starts: the first is the oldest.
    for (const oldest of this.windows.keys()) {
      if (this.windows.size < MAX_WINDOWS) break;
      this.windows.delete(oldest);
    }
    this.windows.set(key, { failures: 1, endsAt: now + this.windowSeconds * 1000 });
  }

  async clear(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
