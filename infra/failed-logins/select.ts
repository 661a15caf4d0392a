import type { AppConfig } from '../config.js';
import { deploymentName } from '../deployment-name.js';
import type { Clock } from '../clock/port.js';
import type { Redis } from 'ioredis';
import { MemoryFailedLogins } from './memory.js';
import type { FailedLogins } from './port.js';

/**
 * Counted in Redis when REDIS_URL is set (shared by servers), on the runtime's request-time
 * connection (`redis`, infra/select.ts), else in this process.
 */
export async function createFailedLogins(config: AppConfig, clock: Clock, redis: Redis | null): Promise<FailedLogins> {
  const windowSeconds = config.loginFailureWindowSeconds;
  if (redis) {
    const { RedisFailedLogins } = await import('./redis.js');
    return new RedisFailedLogins(redis, windowSeconds, clock, `${deploymentName(config)}:failed-logins:`);
  }
  return new MemoryFailedLogins(windowSeconds, clock);
}
