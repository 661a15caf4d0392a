import type { FastifyInstance } from 'fastify';
import { clientAddress, trustedProxies } from '../http/client-address.js';
import { rateLimitHook } from '../http/rate-limit.js';
import type { RouteRuntime } from '../http/routes-plugin.js';
import { RateLimitedError } from '../../infra/errors.js';
import { deploymentName } from '../../infra/deployment-name.js';
import { accessOf } from './access.js';

export const DIRECTORY_RATE_LIMIT = { max: 120, timeWindowMs: 60_000 } as const;

/**
 * 120 requests per minute per token on the routes of this scope only, CORS preflights aside,
 * with X-RateLimit-* headers on every answer. Added after the access hook (scope hooks run in
 * order), so the key is the token's hash. With Redis away, requests are let through uncounted
 * rather than refused: library sites embed the directory, and it costs little to answer.
 */
export async function registerTokenRateLimit(scope: FastifyInstance, runtime: RouteRuntime): Promise<void> {
  const trust = trustedProxies(runtime.config);
  const { max, timeWindowMs } = DIRECTORY_RATE_LIMIT;
  const hook = await rateLimitHook(scope, runtime.infra.requestRedis, {
    name: 'directory-rate-limit',
    deployment: deploymentName(runtime.config),
    max,
    windowMs: timeWindowMs,
    // A request without a valid token is counted per client address, by the chatbot's rule (routes/http/client-address.ts).
    key: (request) => accessOf(request)?.tokenHash ?? `ip:${clientAddress(request, trust)}`,
    counts: (request) => request.method !== 'OPTIONS',
    refusal: (seconds) =>
      new RateLimitedError(
        `Rate limit exceeded: ${max} requests per minute per token. Try again in ${seconds} s.`,
        seconds,
      ),
    whenRedisIsAway: 'let through',
    countHeaders: true,
  });
  scope.addHook('onRequest', hook);
}
