import type { FastifyRequest } from 'fastify';
import type { Credential } from '../permissions.js';
import { queryText } from '../../routes/http/query-text.js';
import { SESSION_COOKIE } from '../../infra/session-store/cookie.js';

/**
 * Whom an answer was made for, as far as it can differ: the credentials the route reads (its
 * entry in app/permissions.ts), as presented. No credential presented is the anonymous viewer,
 * whose answers shared caches may keep; any other viewer's tags differ from it and from each
 * other's, so no ETag of one viewer's answer ever matches another's.
 */
export interface Viewer {
  anonymous: boolean;
  /** Folded into the answer's digest; empty for the anonymous viewer. */
  key: string;
  /** The request headers the answer depends on, for Vary. */
  vary: readonly string[];
}

const VARY_BY: Partial<Record<Credential, string>> = { session: 'Cookie', directory_token: 'Authorization' };

function presented(request: FastifyRequest, credential: Credential): string | undefined {
  switch (credential) {
    case 'session':
      return request.cookies?.[SESSION_COOKIE] || undefined;
    case 'api_key':
      return queryText(request, 'key_identity') || undefined;
    case 'directory_token':
      return request.headers.authorization || queryText(request, 'token') || undefined;
  }
}

export function viewerOf(request: FastifyRequest): Viewer {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const credentials = request.routeOptions.config?.permissions?.[method]?.credentials ?? [];
  let key = '';
  const vary: string[] = [];
  for (const credential of credentials) {
    const value = presented(request, credential);
    if (value !== undefined) key += `${credential}=${value}\n`;
    const header = VARY_BY[credential];
    if (header) vary.push(header);
  }
  return { anonymous: key === '', key, vary };
}
