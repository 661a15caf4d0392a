import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256, verifySecret } from '../../infra/crypto/secret-hash.js';
import { ForbiddenError } from '../../infra/errors.js';
import type { Role } from '../../contracts/users/roles.js';
import { findApiKey, findUser } from '../../queries/users.js';
import type { RouteRuntime } from './routes-plugin.js';
import type { SessionStore } from '../../infra/session-store/port.js';
import { createSessionStore } from '../../infra/session-store/select.js';
import { SESSION_COOKIE } from '../../infra/session-store/cookie.js';
import { queryText } from './query-text.js';

export interface Principal {
  id: number;
  name: string;
  email: string;
  role: Role;
}

/** Which credentials a surface recognises. */
export interface AuthMode {
  apiKey: boolean;
  session: boolean;
}

export const KEY_OR_SESSION: AuthMode = { apiKey: true, session: true };
export const SESSION_ONLY: AuthMode = { apiKey: false, session: true };
export const KEY_ONLY: AuthMode = { apiKey: true, session: false };

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller, or null when anonymous. With apiKey, a key pair that does not match is a 403,
     * never anonymous.
     */
    principal(mode: AuthMode): Promise<Principal | null>;
  }
  interface FastifyInstance {
    sessions: SessionStore;
  }
}

/**
 * Resolves API keys and sessions (kept in the session store: see infra/session-store). A key
 * checked with scrypt once is remembered by a SHA-256 of its credential, so later requests cost
 * a map lookup; revoking the key ends that.
 */
export const authPlugin = fp(async (app: FastifyInstance, opts: { runtime: RouteRuntime; sessions?: SessionStore }) => {
  const { documents, config, clock, infra } = opts.runtime;
  const sessions = opts.sessions ?? (await createSessionStore(config, clock, infra.requestRedis, opts.runtime.logger));
  // A store passed in belongs to its caller, who closes it.
  if (!opts.sessions) app.addHook('onClose', () => sessions.close());
  const verified = new Map<string, string>();
  /** Concurrent first requests with one key share one scrypt check instead of each running it. */
  const verifying = new Map<string, Promise<boolean>>();
  app.decorate('sessions', sessions);

  async function userFromKey(identity: string, credential: string): Promise<Principal> {
    const key = await findApiKey(documents, identity);
    if (!key) throw new ForbiddenError('Invalid API key.');
    const cacheKey = `${identity}\u0000${sha256(credential)}`;
    if (verified.get(cacheKey) !== key.credentialHash) {
      let check = verifying.get(cacheKey);
      if (!check) {
        check = verifySecret(credential, key.credentialHash).finally(() => verifying.delete(cacheKey));
        verifying.set(cacheKey, check);
      }
      if (!(await check)) throw new ForbiddenError('Invalid API key.');
      if (verified.size > 10_000) verified.clear();
      verified.set(cacheKey, key.credentialHash);
    }
    const user = await findUser(documents, key.userId);
    if (!user) throw new ForbiddenError('Invalid API key.');
    return { id: user.id, name: user.name, email: user.email, role: user.role };
  }

  async function userFromSession(request: FastifyRequest): Promise<Principal | null> {
    const token = request.cookies?.[SESSION_COOKIE];
    if (!token) return null;
    const userId = await sessions.userIdFor(token);
    if (userId === null) return null;
    const user = await findUser(documents, userId);
    return user ? { id: user.id, name: user.name, email: user.email, role: user.role } : null;
  }

  /** The permission gate and the route both ask who is calling: resolve once per request and mode. */
  const resolved = new WeakMap<FastifyRequest, Map<string, Promise<Principal | null>>>();

  app.decorateRequest('principal', function principal(this: FastifyRequest, mode: AuthMode): Promise<Principal | null> {
    const modeKey = `${mode.apiKey ? 'key' : ''}+${mode.session ? 'session' : ''}`;
    let byMode = resolved.get(this);
    if (!byMode) resolved.set(this, (byMode = new Map()));
    let found = byMode.get(modeKey);
    if (!found) byMode.set(modeKey, (found = resolvePrincipal(this, mode)));
    return found;
  });

  async function resolvePrincipal(request: FastifyRequest, mode: AuthMode): Promise<Principal | null> {
    if (mode.apiKey) {
      const identity = queryText(request, 'key_identity');
      const credential = queryText(request, 'key_credential');
      if (identity !== undefined || credential !== undefined) {
        if (!identity || !credential) throw new ForbiddenError('Invalid API key.');
        return userFromKey(identity, credential);
      }
    }
    return mode.session ? userFromSession(request) : null;
  }
});
