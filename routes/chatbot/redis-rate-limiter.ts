import type { Redis } from 'ioredis';
import { createRequestRedisClient, unlessRedisIsAway, type RedisOutageLogger } from '../../infra/redis/request-client.js';
import type { RateLimiter } from '../../queries/chatbot/services.js';

/** INCR and, on the window's first hit, EXPIRE, in one step; answers the count and the seconds left. */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

/** The per-IP count in Redis, so every server process shares one limit. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Pick<Redis, 'eval' | 'disconnect'>;

  constructor(
    url: string,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly prefix = 'chatbot:rate:',
    client?: Pick<Redis, 'eval' | 'disconnect'>,
    logger?: RedisOutageLogger,
  ) {
    this.redis = client ?? createRequestRedisClient(url, 'chatbot rate limit store', logger);
  }

  async hit(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    if (this.limit === 0) return { allowed: true, retryAfterSeconds: 0 };
    const [count, ttl] = (await unlessRedisIsAway('rate limit store', 'The rate limit store is unavailable.', () =>
      this.redis.eval(HIT, 1, `${this.prefix}${key}`, String(this.windowSeconds)),
    )) as [number, number];
    return { allowed: count <= this.limit, retryAfterSeconds: Math.max(1, ttl) };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
