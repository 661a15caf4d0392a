import t from 'tap';
import type { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { RedisRateLimiter } from '../../../routes/chatbot/redis-rate-limiter.js';

/** Plays the script's part (INCR, EXPIRE on the first hit, TTL) so the limiter's use of it is checked. */
function fakeRedis() {
  const counts = new Map<string, number>();
  const calls: unknown[][] = [];
  const client = {
    async eval(...args: unknown[]) {
      calls.push(args);
      const key = args[2] as string;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return [count, Number(args[3]) - 1];
    },
    disconnect() {},
  };
  return { client: client as unknown as Pick<Redis, 'eval' | 'disconnect'>, calls };
}

t.test('counts per IP in Redis with INCR and EXPIRE in one script', async (t) => {
  const { client, calls } = fakeRedis();
  const limiter = new RedisRateLimiter('redis://unused', 2, 60, 'chatbot:rate:', client);
  t.same(await limiter.hit('192.0.2.1'), { allowed: true, retryAfterSeconds: 59 });
  t.same(await limiter.hit('192.0.2.1'), { allowed: true, retryAfterSeconds: 59 });
  t.same(await limiter.hit('192.0.2.1'), { allowed: false, retryAfterSeconds: 59 });
  t.same(await limiter.hit('192.0.2.2'), { allowed: true, retryAfterSeconds: 59 }, 'another IP has its own count');
  t.match(String(calls[0][0]), /INCR[\s\S]*EXPIRE[\s\S]*TTL/);
  t.same(calls[0].slice(1), [1, 'chatbot:rate:192.0.2.1', '60']);
});

t.test('a Redis failure is a 503, not an open door or a 500', async (t) => {
  const client = {
    eval: async () => {
      throw new Error('ECONNREFUSED');
    },
    disconnect() {},
  } as unknown as Pick<Redis, 'eval' | 'disconnect'>;
  const limiter = new RedisRateLimiter('redis://unused', 2, 60, 'p:', client);
  const error = await limiter.hit('x').catch((e: unknown) => e);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal((error as Error).message, 'The rate limit store is unavailable.');
});
