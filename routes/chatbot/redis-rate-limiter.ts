import { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../../infra/errors.js';
import type { RateLimiter } from '../../queries/chatbot/services.js';

/** INCR and, on the window's first hit, EXPIRE, in one step; answers the count and the seconds left. */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

/** A request never waits longer than this for Redis: then it is a 503. */
const COMMAND_TIMEOUT_MS = 1_000;

export interface RateLimiterLogger {
  warn(details: object, message: string): void;
  info(message: string): void;
}

/**
 * The client: commands wait in the offline queue only while a connection is being made (the
 * first one, or a reconnect), bounded by the command timeout; it reconnects every second at most,
 * so the limit works again soon after Redis is back.
 */
function createClient(url: string, logger?: RateLimiterLogger): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    connectTimeout: COMMAND_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Every reconnect attempt repeats the error: it is logged once per outage.
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger?.warn({ err }, 'chatbot rate limit store (Redis) is unavailable; retrying');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger?.info('chatbot rate limit store (Redis) is reachable again');
    down = false;
  });
  return redis;
}

/** The per-IP count in Redis, so every server process shares one limit. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Pick<Redis, 'eval' | 'disconnect'>;

  constructor(
    url: string,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly prefix = 'chatbot:rate:',
    client?: Pick<Redis, 'eval' | 'disconnect'>,
    logger?: RateLimiterLogger,
  ) {
    this.redis = client ?? createClient(url, logger);
  }

  async hit(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    if (this.limit === 0) return { allowed: true, retryAfterSeconds: 0 };
    try {
      const [count, ttl] = (await this.redis.eval(HIT, 1, `${this.prefix}${key}`, String(this.windowSeconds))) as [number, number];
      return { allowed: count <= this.limit, retryAfterSeconds: Math.max(1, ttl) };
    } catch {
      throw new DependencyUnavailableError('rate limit store', 'The rate limit store is unavailable.');
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
