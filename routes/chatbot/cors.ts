import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeOrigin } from '../../infra/net/origin.js';
import { ForbiddenError } from '../../infra/errors.js';
import { ErrorBody } from './schemas.js';

/** How long a browser may reuse a preflight answer, in seconds. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export const ORIGIN_REFUSED_MESSAGE = 'This origin may not call the chatbot.';

/**
 * CORS for the chatbot's two public endpoints, by hand (@fastify/cors is not installed and the
 * whole of it is these few headers). The endpoints take no credentials, so any origin may call
 * them unless CHATBOT_ALLOWED_ORIGINS lists the ones that may; other origins then get no CORS
 * headers, and the browser keeps the answer from the calling page.
 */
export class ChatbotCors {
  private readonly allowed: ReadonlySet<string> | null;

  constructor(allowedOrigins: readonly string[]) {
    this.allowed = allowedOrigins.length > 0 ? new Set(allowedOrigins) : null;
  }

  /** The Access-Control-Allow-Origin value for this Origin header, or null when it gets none. */
  private allowOriginFor(origin: string | undefined): string | null {
    if (this.allowed === null) return '*';
    if (origin === undefined) return null;
    return this.allowed.has(normalizeOrigin(origin) ?? origin) ? origin : null;
  }

  /**
   * An onRequest hook for every chatbot route, so errors (400, 429, 503) carry the headers too
   * and the panel can read their messages; Retry-After is exposed for the 429.
   */
  readonly headers = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // With a list the answer depends on the Origin, so caches must keep one per Origin.
    if (this.allowed !== null) reply.header('Vary', 'Origin');
    const allowOrigin = this.allowOriginFor(request.headers.origin);
    if (allowOrigin === null) return;
    reply.header('Access-Control-Allow-Origin', allowOrigin);
    reply.header('Access-Control-Expose-Headers', 'Retry-After');
  };

  /**
   * OPTIONS: the preflight a browser sends before a JSON POST. A listed (or any) origin gets 204
   * with the method and header it may use; an origin outside the list gets 403. The route has no
   * rate-limit hook: a preflight is the browser asking, not the caller spending a request.
   */
  readonly preflight = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const origin = request.headers.origin;
    if (origin !== undefined && this.allowOriginFor(origin) === null) throw new ForbiddenError(ORIGIN_REFUSED_MESSAGE);
    reply.header('Access-Control-Allow-Methods', 'POST');
    reply.header('Access-Control-Allow-Headers', 'content-type');
    reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    return reply.status(204).send();
  };
}

/** For the POST routes' OpenAPI descriptions. */
export const CORS_NOTE =
  'Pages of any origin may call it from a browser (Access-Control-Allow-Origin on every answer, errors included, ' +
  'with Retry-After exposed), unless CHATBOT_ALLOWED_ORIGINS lists the origins that may.';

const PREFLIGHT_SCHEMA = {
  tags: ['Chatbot'],
  summary: 'CORS preflight',
  description:
    'What a browser asks before a JSON POST from a page of another origin: 204 with Access-Control-Allow-Methods POST and ' +
    'Access-Control-Allow-Headers content-type, or 403 for an origin outside CHATBOT_ALLOWED_ORIGINS (when set). Not counted ' +
    'toward the per-IP limit.',
  response: {
    204: Type.Null({ description: 'The origin may call the endpoint.' }),
    403: { ...ErrorBody, description: 'The origin is not in CHATBOT_ALLOWED_ORIGINS.' },
  },
};

/**
 * CORS for the routes of one scope: the headers on every answer of the scope, and a preflight
 * route per URL. Register it in the scope of the chatbot's routes: scope hooks run before the
 * routes' own, so a 429 from the rate-limit hook carries the headers too.
 */
export function registerChatbotCors(
  scope: FastifyInstance,
  allowedOrigins: readonly string[],
  urls: readonly string[],
): void {
  const cors = new ChatbotCors(allowedOrigins);
  scope.addHook('onRequest', cors.headers);
  for (const url of urls) scope.options(url, { schema: PREFLIGHT_SCHEMA }, cors.preflight);
}
