import type { Redis } from 'ioredis';
import type { Clock } from '../clock/port.js';
import { unlessRedisIsAway } from '../redis/request-client.js';
import { newSessionToken, sessionKey, SESSION_TTL_MS, type SessionStore } from './port.js';

type SessionClient = Pick<Redis, 'set' | 'get' | 'del'>;

/**
 * Sessions in Redis, shared by every server of a deployment. A key holds `userId:expiresAt` and
 * expires with the session; the stored expiry is checked too, so the store answers to the
 * runtime's clock as the embedded one does. The connection is the runtime's (see
 * infra/redis/request-client.ts), which closes it.
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: SessionClient,
    private readonly clock: Clock,
    /** Servers with the same prefix share sessions (see createSessionStore). */
    private readonly prefix: string,
  ) {}

  private keyOf(token: string): string {
    return `${this.prefix}${sessionKey(token)}`;
  }

  /** Redis away is a 503 for the request, never a login refused or a session silently lost. */
  private command<T>(run: () => Promise<T>): Promise<T> {
    return unlessRedisIsAway('session store', 'The session store is unavailable.', run);
  }

  async create(userId: number): Promise<string> {
    const expiresAt = this.clock.now().getTime() + SESSION_TTL_MS;
    const token = newSessionToken();
    await this.command(() => this.redis.set(this.keyOf(token), `${userId}:${expiresAt}`, 'PX', SESSION_TTL_MS));
    return token;
  }

  async userIdFor(token: string): Promise<number | null> {
    const key = this.keyOf(token);
    const value = await this.command(() => this.redis.get(key));
    if (value === null) return null;
    const [userId, expiresAt] = value.split(':').map(Number);
    if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(expiresAt)) return null;
    if ((expiresAt as number) <= this.clock.now().getTime()) {
      await this.command(() => this.redis.del(key));
      return null;
    }
    return userId as number;
  }

  async destroy(token: string): Promise<void> {
    await this.command(() => this.redis.del(this.keyOf(token)));
  }

  /** The connection is shared: the runtime closes it. */
  async close(): Promise<void> {}
}
