import type { FastifyInstance } from 'fastify';
import { clientAddress, trustedProxies } from '../http/client-address.js';
import { rateLimitHook, type RateLimitHook } from '../http/rate-limit.js';
import type { RouteRuntime } from '../http/routes-plugin.js';
import { RateLimitedError } from '../../infra/errors.js';
import { deploymentName } from '../../infra/deployment-name.js';

export const RATE_LIMIT_MESSAGE = 'Rate limit exceeded. Please try again shortly.';
export const RATE_LIMIT_STORE_AWAY_MESSAGE = 'The rate limit store is unavailable.';

/**
 * The seed's limit, for the onRequest of both POST endpoints: CHATBOT_RATE_LIMIT requests per
 * CHATBOT_RATE_WINDOW_SECONDS per client address (routes/http/client-address.ts: the seed's headers, or
 * TRUST_PROXY's rule), one budget for the two. With Redis away the request is refused (503)
 * rather than let through uncounted: the endpoints are public and each answer costs an
 * embedding, and perhaps a hosted model's reply.
 */
export function chatbotRateLimit(scope: FastifyInstance, runtime: RouteRuntime): Promise<RateLimitHook> {
  const { chatbotRateLimit: max, chatbotRateWindowSeconds } = runtime.config;
  const trust = trustedProxies(runtime.config);
  return rateLimitHook(scope, runtime.infra.requestRedis, {
    name: 'chatbot-rate-limit',
    deployment: deploymentName(runtime.config),
    max,
    windowMs: chatbotRateWindowSeconds * 1000,
    key: (request) => clientAddress(request, trust),
    counts: (request) => request.method === 'POST',
    refusal: (retryAfterSeconds) => new RateLimitedError(RATE_LIMIT_MESSAGE, retryAfterSeconds),
    whenRedisIsAway: { refuse: RATE_LIMIT_STORE_AWAY_MESSAGE },
    countHeaders: false,
  });
}
