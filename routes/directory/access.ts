import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteRuntime } from '../http/routes-plugin.js';
import { queryText } from '../http/query-text.js';
import { planAllowsApi } from '../../contracts/directory/values.js';
import { normalizeOrigin } from '../../infra/net/origin.js';
import { sha256 } from '../../infra/crypto/secret-hash.js';
import { ForbiddenError, UnauthorizedError } from '../../infra/errors.js';
import { findLibrary } from '../../queries/directory/library.js';
import { findActiveToken } from '../../queries/directory/tokens.js';
import type { TokenDoc } from '../../contracts/directory/documents.js';

/** Who is calling the directory API: the token (by hash, also the rate-limit key). */
export interface DirectoryAccess {
  tokenId: number;
  tokenHash: string;
}

const accessByRequest = new WeakMap<FastifyRequest, DirectoryAccess>();

export function accessOf(request: FastifyRequest): DirectoryAccess | undefined {
  return accessByRequest.get(request);
}

/**
 * The token as sent: `Authorization: Bearer <token>` first, else `?token=`. An Authorization
 * header of another scheme counts as a wrong token, not a missing one.
 */
export function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : '';
  }
  return queryText(request, 'token') ?? null;
}

export async function tokenFor(runtime: RouteRuntime, token: string): Promise<TokenDoc | null> {
  return token ? findActiveToken(runtime.documents, sha256(token)) : null;
}

/** A request Origin is allowed by an empty list (any site) or when the list holds it. */
export function originAllowed(token: TokenDoc, origin: string | undefined): boolean {
  if (origin === undefined || token.allowed_origins.length === 0) return true;
  return token.allowed_origins.includes(normalizeOrigin(origin) ?? origin);
}

export function allowCors(reply: FastifyReply, origin: string | undefined): void {
  if (origin === undefined) return;
  reply.header('Access-Control-Allow-Origin', origin);
  reply.header(
    'Access-Control-Expose-Headers',
    'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
  );
}

function refuseToken(reply: FastifyReply, origin: string | undefined, message: string): never {
  // An unknown token has no origin list to check; answering with CORS lets the widget show the message.
  allowCors(reply, origin);
  reply.header('WWW-Authenticate', 'Bearer realm="directory"');
  throw new UnauthorizedError(message);
}

/**
 * The gate of every /api/v1/ request, in order: a token (401), a token that exists and is not
 * revoked (401), an Origin the token allows (403, and no CORS headers, so browsers on other
 * sites cannot read the answer), a library plan with API access (403).
 */
export function directoryAccessHook(runtime: RouteRuntime) {
  return async function checkDirectoryAccess(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.method === 'OPTIONS') return;
    reply.header('Vary', 'Origin');
    const origin = request.headers.origin;
    const presented = presentedToken(request);
    if (presented === null)
      refuseToken(reply, origin, 'A directory API token is required (Authorization: Bearer <token> or ?token=).');
    const token = await tokenFor(runtime, presented);
    if (!token) refuseToken(reply, origin, 'The directory API token is not valid.');
    if (!originAllowed(token, origin)) throw new ForbiddenError('This token may not be used from this origin.');
    allowCors(reply, origin);
    const library = await findLibrary(runtime.documents);
    if (!planAllowsApi(library?.plan))
      throw new ForbiddenError("The library's plan does not include the directory API and widget.");
    accessByRequest.set(request, { tokenId: token.id, tokenHash: token.token_hash });
  };
}
