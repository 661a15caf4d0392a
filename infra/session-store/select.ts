import { join } from 'node:path';
import type { AppConfig } from '../config.js';
import { deploymentName } from '../deployment-name.js';
import type { Clock } from '../clock/port.js';
import type { Redis } from 'ioredis';
import type { SessionStore } from './port.js';
import { RevocableSessionStore } from './revocations.js';
import { SqliteSessionStore } from './sqlite.js';

function sessionFileFor(dataDir: string): string {
  return join(dataDir, 'sessions.sqlite');
}

/**
 * Sessions in Redis when REDIS_URL is set (shared by servers), on the runtime's request-time
 * connection (`redis`, infra/select.ts), else in DATA_DIR/sessions.sqlite; either way a logout
 * the store refuses still ends the session (revocations.ts).
 */
export async function createSessionStore(
  config: AppConfig,
  clock: Clock,
  redis: Redis | null,
  logger: ConstructorParameters<typeof RevocableSessionStore>[1],
): Promise<SessionStore> {
  return new RevocableSessionStore(await storeFor(config, clock, redis), logger);
}

async function storeFor(config: AppConfig, clock: Clock, redis: Redis | null): Promise<SessionStore> {
  if (redis) {
    // Imported on demand, so the Redis adapter's code loads only when Redis is configured.
    const { RedisSessionStore } = await import('./redis.js');
    // Keyed like the job queues: the servers of one deployment share sessions, other apps on the Redis never see them.
    return new RedisSessionStore(redis, clock, `${deploymentName(config)}:session:`);
  }
  return new SqliteSessionStore(sessionFileFor(config.dataDir), clock);
}
