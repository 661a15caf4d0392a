import { randomBytes } from 'node:crypto';
import { sha256 } from '../crypto/secret-hash.js';

/** How long a login lasts. */
export const SESSION_TTL_MS = 1000 * 60 * 60 * 24 * 7;

/**
 * Login sessions, keyed by an unguessable token that travels in an HttpOnly cookie. Stores keep
 * them outside the process, so a restart does not log editors out and several servers share them.
 */
export interface SessionStore {
  /** Starts a session for the user, lasting SESSION_TTL_MS; answers its token. */
  create(userId: number): Promise<string>;
  /** The user of a live session, or null for a token unknown, ended or expired. */
  userIdFor(token: string): Promise<number | null>;
  /** Ends the session; an unknown token is no error. */
  destroy(token: string): Promise<void>;
  close(): Promise<void>;
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What a store keeps in place of the token: a copy of the store (a file, a Redis dump) then
 * holds nothing a browser could present.
 */
export function sessionKey(token: string): string {
  return sha256(token);
}
