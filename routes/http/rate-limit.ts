import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { DependencyUnavailableError, type RateLimitedError } from '../../infra/errors.js';

/**
 * What a limit does when Redis, which keeps its counts, cannot be asked (within the request
 * client's command timeout, infra/redis/request-client.ts): refuse the request with a 503
 * saying so, or let it through uncounted.
 */
export type WhenRedisIsAway = { refuse: string } | 'let through';

export interface RateLimitPolicy {
  /** Names the limit's counts in Redis: `<deployment>:<name>:<key>`. */
  name: string;
  /**
   * The deployment's prefix in Redis (infra/deployment-name.ts: after the read models' MongoDB database, else DATA_DIR): another
   * deployment on the same Redis counts its own requests, as it keeps its own sessions.
   */
  deployment: string;
  /** Requests per window and key; 0 turns the limit off. */
  max: number;
  windowMs: number;
  /** Whose budget a request spends: a client address, a token's hash. */
  key(request: FastifyRequest): string;
  /** Whether a request spends any budget (a CORS preflight, say, does not). */
  counts(request: FastifyRequest): boolean;
  /** The 429 for a request over the limit; its Retry-After is the seconds left in the window. */
  refusal(retryAfterSeconds: number): RateLimitedError;
  whenRedisIsAway: WhenRedisIsAway;
  /** X-RateLimit-Limit, -Remaining and -Reset on every answer counted (the directory has them). */
  countHeaders: boolean;
}

export type RateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Keys the in-process store remembers, the least recently used forgotten first: callers can
 * make up keys (addresses in headers) for nothing, so memory stays bounded.
 */
const IN_PROCESS_KEYS = 100_000;

/**
 * Whether the connection was made and lost and is not back yet: a limit that lets requests
 * through then does so at once, rather than each waiting out the command timeout in the offline
 * queue. A client that never connected ('wait') connects on its first command.
 */
function knownAway(redis: Redis): boolean {
  return redis.status !== 'ready' && redis.status !== 'wait';
}

function setCountHeaders(reply: FastifyReply, max: number, remaining: number, resetSeconds: number): void {
  reply.header('x-ratelimit-limit', max);
  reply.header('x-ratelimit-remaining', remaining);
  reply.header('x-ratelimit-reset', resetSeconds);
}

/**
 * A fixed-window limit by @fastify/rate-limit, registered in `scope` and answered as an
 * onRequest hook for the caller to place: counts in Redis on the runtime's request-time
 * connection (`redis`, shared by every server of the deployment), or in this process when there
 * is none. The hook runs before the body is read, so a request counts whether it is valid or not.
 * The plugin's own hooks are not used (`global: false`): this hook turns its answer into the
 * project's errors, so a 429 and a 503 take the surface's error shape from the one error handler
 * and Redis away never becomes a 500.
 */
export async function rateLimitHook(
  scope: FastifyInstance,
  redis: Redis | null,
  policy: RateLimitPolicy,
): Promise<RateLimitHook> {
  if (policy.max === 0) return async () => {};
  await scope.register(rateLimit, {
    global: false,
    max: policy.max,
    timeWindow: policy.windowMs,
    keyGenerator: policy.key,
    // Only a store that cannot answer throws; the hook below decides what that means.
    skipOnError: false,
    ...(redis ? { redis, nameSpace: `${policy.deployment}:${policy.name}:` } : { cache: IN_PROCESS_KEYS }),
  });
  const check = scope.createRateLimit();
  return async (request, reply) => {
    if (!policy.counts(request)) return;
    if (redis && policy.whenRedisIsAway === 'let through' && knownAway(redis)) return;
    let outcome: Awaited<ReturnType<typeof check>>;
    try {
      outcome = await check(request);
    } catch {
      if (policy.whenRedisIsAway === 'let through') return;
      throw new DependencyUnavailableError('rate limit store', policy.whenRedisIsAway.refuse);
    }
    if (outcome.isAllowed) return;
    const retryAfterSeconds = Math.max(1, outcome.ttlInSeconds);
    if (policy.countHeaders) setCountHeaders(reply, outcome.max, outcome.remaining, retryAfterSeconds);
    if (outcome.isExceeded) throw policy.refusal(retryAfterSeconds);
  };
}
