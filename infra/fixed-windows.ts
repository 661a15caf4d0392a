/** One key's count in its current window. */
export interface Window {
  count: number;
  endsAt: number;
}

/** Seconds from `now` until the window ends, at least 1. */
export function secondsLeft(window: Window, now: number): number {
  return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
}

/**
 * Counts per key in fixed windows, in this process: a key's first hit starts its window, and
 * the count is forgotten when it ends. Every window lasts as long, and a key starting a new one
 * goes to the back of the map, so the map is in the order the windows end: the ended ones are
 * always at its front, and dropping them costs nothing per hit however many keys there are. At
 * most `maxWindows` are kept, the oldest forgotten first, since callers can make up keys
 * (addresses, emails) for nothing.
 */
export class FixedWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs: number,
    private readonly maxWindows = 100_000,
  ) {}

  /** The key's live window, or null. */
  current(key: string, now: number): Window | null {
    const window = this.windows.get(key);
    return window && window.endsAt > now ? window : null;
  }

  /** Counts a hit: in the key's live window, or a new one starting now. */
  hit(key: string, now: number): Window {
    const live = this.current(key, now);
    if (live) {
      live.count += 1;
      return live;
    }
    this.windows.delete(key);
    for (const [oldest, { endsAt }] of this.windows) {
      if (endsAt > now && this.windows.size < this.maxWindows) break;
      this.windows.delete(oldest);
    }
    const window = { count: 1, endsAt: now + this.windowMs };
    this.windows.set(key, window);
    return window;
  }

  forget(key: string): void {
    this.windows.delete(key);
  }

  clear(): void {
    this.windows.clear();
  }
}
