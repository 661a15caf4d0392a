import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Runtime } from '../../app/runtime.js';
import { RateLimitedError } from '../../infra/errors.js';
import { accessOf } from './access.js';

/** Gives Redis a moment at start-up, so the first requests are counted too; never fails the start. */
function connectedOrGaveUp(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
  });
}

export const DIRECTORY_RATE_LIMIT = { max: 120, timeWindowMs: 60_000 } as const;

/**
 * 120 requests per minute per token on the routes of this scope only. With REDIS_URL the count
 * lives in Redis so every app instance shares it. The access hook runs first (instance hooks
 * before route hooks), so the key is the token's hash; if Redis fails, requests are let through
 * rather than refused (no offline queue: a request never waits for Redis to come back).
 */
export async function registerTokenRateLimit(scope: FastifyInstance, runtime: Runtime): Promise<void> {
  // Imported only when REDIS_URL is set: the client is not needed, nor its memory, otherwise.
  const redis = runtime.config.redisUrl
    ? new (await import('ioredis')).Redis(runtime.config.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  if (redis) {
    // Every reconnect attempt repeats the error while Redis is away: it is logged once per outage.
    let down = false;
    redis.on('error', (err: Error) => {
      if (!down) runtime.logger.warn({ err }, 'directory rate-limit redis error; requests are let through until it is back');
      down = true;
    });
    redis.on('ready', () => {
      if (down) runtime.logger.info('directory rate-limit redis is reachable again');
      down = false;
    });
    scope.addHook('onClose', async () => {
      // quit() waits for a connection that may never come back; only a live client says goodbye.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    });
    await connectedOrGaveUp(redis, 2000);
  }
  await scope.register(rateLimit, {
    global: true,
    max: DIRECTORY_RATE_LIMIT.max,
    timeWindow: DIRECTORY_RATE_LIMIT.timeWindowMs,
    keyGenerator: (request) => accessOf(request)?.tokenHash ?? `ip:${request.ip}`,
    redis,
    nameSpace: 'directory-rate-limit:',
    skipOnError: true,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new RateLimitedError(`Rate limit exceeded: ${context.max} requests per minute per token. Try again in ${seconds} s.`, seconds);
    },
  });
}
