import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteRuntime } from '../http/routes-plugin.js';
import { errorBody } from '../http/error-format.js';
import { allowCors, originAllowed, presentedToken, tokenFor } from './access.js';

/**
 * CORS preflight for /api/v1/ (a browser sending `Authorization: Bearer` asks first). The
 * preflight carries no Authorization header, so the origin is checked only when the token is in
 * the query; otherwise the real request is checked and refused without CORS headers if need be.
 */
export function directoryPreflight(runtime: RouteRuntime) {
  return async function preflight(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const origin = request.headers.origin;
    reply.header('Vary', 'Origin');
    const presented = presentedToken(request);
    if (presented) {
      const token = await tokenFor(runtime, presented);
      if (token && !originAllowed(token, origin)) {
        return reply.status(403).send(errorBody('plain', 'This token may not be used from this origin.'));
      }
    }
    allowCors(reply, origin);
    reply.header('Access-Control-Allow-Methods', 'GET, OPTIONS');
    reply.header('Access-Control-Allow-Headers', 'Authorization');
    reply.header('Access-Control-Max-Age', '600');
    return reply.status(204).send();
  };
}
