import type { AppConfig } from '../../app/config.js';
import type { Clock } from '../clock/port.js';
import type { RedisOutageLogger } from '../redis/request-client.js';
import { MemoryFailedLogins } from './memory.js';
import type { FailedLogins } from './port.js';

/** Counted in Redis when REDIS_URL is set (shared by servers), else in this process. */
export async function createFailedLogins(config: AppConfig, clock: Clock, logger?: RedisOutageLogger): Promise<FailedLogins> {
  const windowSeconds = config.loginFailureWindowSeconds;
  if (config.redisUrl) {
    const { RedisFailedLogins } = await import('./redis.js');
    const { queuePrefixFor } = await import('../job-queue/bullmq.js');
    return new RedisFailedLogins(config.redisUrl, windowSeconds, clock, `${queuePrefixFor(config.dataDir)}:failed-logins:`, logger);
  }
  return new MemoryFailedLogins(windowSeconds, clock);
}
