import type { Redis } from 'ioredis';
import type { Clock } from '../clock/port.js';
import { createRequestRedisClient, unlessRedisIsAway, type RedisOutageLogger } from '../redis/request-client.js';
import type { FailedLogins, FailureCount } from './port.js';

/** INCR and, on the window's first failure, set the window's end, in one step. */
const RECORD = `
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2]); redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return failures
`;

/**
 * Failed logins counted in Redis, so every server shares the count. A window is two keys that
 * expire with it: the count, and the window's end by the runtime's clock, which the count is
 * read against (as the embedded counter does).
 */
export class RedisFailedLogins implements FailedLogins {
  private readonly redis: Pick<Redis, 'eval' | 'mget' | 'del' | 'disconnect'>;

  constructor(
    url: string,
    private readonly windowSeconds: number,
    private readonly clock: Clock,
    /** Servers with the same prefix share counts (see createFailedLogins). */
    private readonly prefix: string,
    logger?: RedisOutageLogger,
  ) {
    this.redis = createRequestRedisClient(url, 'failed-login counter', logger);
  }

  private keysOf(key: string): [string, string] {
    return [`${this.prefix}${key}:failures`, `${this.prefix}${key}:ends`];
  }

  private command<T>(run: () => Promise<T>): Promise<T> {
    return unlessRedisIsAway('failed-login counter', 'The failed-login counter is unavailable.', run);
  }

  async count(key: string): Promise<FailureCount> {
    const [failures, endsAt] = (await this.command(() => this.redis.mget(...this.keysOf(key)))).map(Number);
    const left = (endsAt as number) - this.clock.now().getTime();
    if (!failures || !(left > 0)) return { failures: 0, retryAfterSeconds: 0 };
    return { failures: failures as number, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
  }

  async record(key: string): Promise<void> {
    const windowMs = this.windowSeconds * 1000;
    const [failures, ends] = this.keysOf(key);
    // A window that ended by the clock but not yet in Redis (a clock ahead of Redis's) starts over.
    const current = await this.count(key);
    if (current.failures === 0) await this.command(() => this.redis.del(failures, ends));
    await this.command(() => this.redis.eval(RECORD, 2, failures, ends, String(this.clock.now().getTime() + windowMs), String(windowMs)));
  }

  async clear(key: string): Promise<void> {
    await this.command(() => this.redis.del(...this.keysOf(key)));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
