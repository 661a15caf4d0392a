import { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../errors.js';

/** A request never waits longer than this for Redis: then it is a 503. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

export interface RedisOutageLogger {
  warn(details: object, message: string): void;
  info(message: string): void;
}

/**
 * A Redis client for work done inside an HTTP request: commands wait in the offline queue only
 * while a connection is being made (the first one, or a reconnect), bounded by the command
 * timeout; it reconnects every second at most, so the feature works again soon after Redis is
 * back. `what` names the feature in the log, which says once per outage that Redis is away.
 */
export function createRequestRedisClient(url: string, what: string, logger?: RedisOutageLogger): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Every reconnect attempt repeats the error: it is logged once per outage.
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger?.warn({ err }, `${what} (Redis) is unavailable; retrying`);
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger?.info(`${what} (Redis) is reachable again`);
    down = false;
  });
  return redis;
}

/**
 * Runs a command of a request-time Redis feature: Redis away (refused, timed out) becomes a
 * DependencyUnavailableError (a 503 saying `message`), never a wrong answer.
 */
export async function unlessRedisIsAway<T>(dependency: string, message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch {
    throw new DependencyUnavailableError(dependency, message);
  }
}
