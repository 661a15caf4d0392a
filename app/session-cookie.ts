import { randomBytes } from 'node:crypto';

const SESSION_TTL_MS = 1000 * 60 * 60 * 24 * 7;

interface Session {
  userId: number;
  expiresAt: number;
}

/** Login sessions, keyed by an unguessable token that travels in an HttpOnly cookie. */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  create(userId: number): string {
    const token = randomBytes(32).toString('base64url');
    this.sessions.set(token, { userId, expiresAt: this.now() + SESSION_TTL_MS });
    return token;
  }

  userIdFor(token: string): number | null {
    const session = this.sessions.get(token);
    if (!session) return null;
    if (session.expiresAt < this.now()) {
      this.sessions.delete(token);
      return null;
    }
    return session.userId;
  }

  destroy(token: string): void {
    this.sessions.delete(token);
  }
}

export const SESSION_COOKIE = 'sid';
