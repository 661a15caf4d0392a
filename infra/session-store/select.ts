import { join } from 'node:path';
import type { AppConfig } from '../../app/config.js';
import type { Clock } from '../clock/port.js';
import type { RedisOutageLogger } from '../redis/request-client.js';
import type { SessionStore } from './port.js';
import { SqliteSessionStore } from './sqlite.js';

function sessionFileFor(dataDir: string): string {
  return join(dataDir, 'sessions.sqlite');
}

/** Sessions in Redis when REDIS_URL is set (shared by servers), else in DATA_DIR/sessions.sqlite. */
export async function createSessionStore(config: AppConfig, clock: Clock, logger?: RedisOutageLogger): Promise<SessionStore> {
  if (config.redisUrl) {
    // Imported on demand, like every Redis client, so ioredis loads only when Redis is configured.
    const { RedisSessionStore } = await import('./redis.js');
    const { queuePrefixFor } = await import('../job-queue/bullmq.js');
    // Keyed like the job queues: servers over one data directory share sessions, other apps on the Redis never see them.
    return new RedisSessionStore(config.redisUrl, clock, `${queuePrefixFor(config.dataDir)}:session:`, logger);
  }
  return new SqliteSessionStore(sessionFileFor(config.dataDir), clock);
}
