import { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../errors.js';

/** A request never waits longer than this for Redis: then it is a 503. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

export interface RedisOutageLogger {
  warn(details: object, message: string): void;
  info(message: string): void;
}

export interface RequestRedisOptions {
  /** Names the features that use the connection, in the log. */
  uses: string;
  logger?: RedisOutageLogger;
  /** Its name in Redis's CLIENT LIST, so an operator can tell it from the job queue's. */
  connectionName?: string;
}

/**
 * The Redis client for work done inside an HTTP request (sessions, failed logins, rate limits):
 * one per runtime (infra/select.ts), shared by those features and closed with the runtime.
 * Commands wait in the offline queue only while a connection is being made (the first one, or a
 * reconnect), bounded by the command timeout; it reconnects every second at most, so the
 * features work again soon after Redis is back. It connects on its first command, so a CLI that
 * never uses it never connects. The log says once per outage that Redis is away.
 */
export function createRequestRedisClient(url: string, { uses, logger, connectionName }: RequestRedisOptions): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    ...(connectionName ? { connectionName } : {}),
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Every reconnect attempt repeats the error: it is logged once per outage.
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger?.warn({ err }, `${uses} (Redis) is unavailable; retrying`);
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger?.info(`${uses} (Redis) is reachable again`);
    down = false;
  });
  return redis;
}

/** Says goodbye to a live Redis (its pending commands end first); one that is away is just dropped. */
export async function closeRequestRedisClient(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
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
