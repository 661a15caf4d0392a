import type { Clock } from '../clock/port.js';
import { FixedWindows, secondsLeft } from '../fixed-windows.js';
import type { FailedLogins, FailureCount } from './port.js';

/** Failed logins counted in this process (the embedded default). */
export class MemoryFailedLogins implements FailedLogins {
  private readonly windows: FixedWindows;

  constructor(
    windowSeconds: number,
    private readonly clock: Clock,
  ) {
    this.windows = new FixedWindows(windowSeconds * 1000);
  }

  async count(key: string): Promise<FailureCount> {
    const now = this.clock.now().getTime();
    const window = this.windows.current(key, now);
    return window
      ? { failures: window.count, retryAfterSeconds: secondsLeft(window, now) }
      : { failures: 0, retryAfterSeconds: 0 };
  }

  async record(key: string): Promise<void> {
    this.windows.hit(key, this.clock.now().getTime());
  }

  async clear(key: string): Promise<void> {
    this.windows.forget(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
