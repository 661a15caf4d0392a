import type { Redis } from 'ioredis';
import type { Clock } from '../clock/port.js';
import { secondsLeft } from '../fixed-windows.js';
import { unlessRedisIsAway } from '../redis/request-client.js';
import type { FailedLogins, FailureCount } from './port.js';

/**
 * One failure, in one step: a window that has ended by the runtime's clock (ARGV[1]), or none,
 * starts over at 1 with its end (ARGV[2]); a live one counts up. Both keys expire with the
 * window (ARGV[3] ms).
 */
const RECORD = `
local ends = tonumber(redis.call('GET', KEYS[2]))
if not ends or ends <= tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[3])
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  return 1
end
return redis.call('INCR', KEYS[1])
`;

/**
 * Failed logins counted in Redis, so every server shares the count. A window is two keys that
 * expire with it: the count, and the window's end by the runtime's clock, which the count is
 * read against (as the embedded counter does). The connection is the runtime's (see
 * infra/redis/request-client.ts), which closes it.
 */
export class RedisFailedLogins implements FailedLogins {
  constructor(
    private readonly redis: Pick<Redis, 'eval' | 'mget' | 'del'>,
    private readonly windowSeconds: number,
    private readonly clock: Clock,
    /** Servers with the same prefix share counts (see createFailedLogins). */
    private readonly prefix: string,
  ) {}

  private keysOf(key: string): [string, string] {
    return [`${this.prefix}${key}:failures`, `${this.prefix}${key}:ends`];
  }

  private command<T>(run: () => Promise<T>): Promise<T> {
    return unlessRedisIsAway('failed-login counter', 'The failed-login counter is unavailable.', run);
  }

  async count(key: string): Promise<FailureCount> {
    const [failures, endsAt] = (await this.command(() => this.redis.mget(...this.keysOf(key)))).map(Number);
    const now = this.clock.now().getTime();
    if (!failures || !((endsAt as number) > now)) return { failures: 0, retryAfterSeconds: 0 };
    return {
      failures: failures as number,
      retryAfterSeconds: secondsLeft({ count: failures as number, endsAt: endsAt as number }, now),
    };
  }

  async record(key: string): Promise<void> {
    const windowMs = this.windowSeconds * 1000;
    const now = this.clock.now().getTime();
    await this.command(() =>
      this.redis.eval(RECORD, 2, ...this.keysOf(key), String(now), String(now + windowMs), String(windowMs)),
    );
  }

  async clear(key: string): Promise<void> {
    await this.command(() => this.redis.del(...this.keysOf(key)));
  }

  /** The connection is shared: the runtime closes it. */
  async close(): Promise<void> {}
}
