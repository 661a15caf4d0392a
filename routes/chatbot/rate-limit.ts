import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../infra/clock/port.js';
import { RateLimitedError } from '../../infra/errors.js';
import { FixedWindows, secondsLeft } from '../../infra/fixed-windows.js';
import type { RateLimiter } from '../../queries/chatbot/services.js';

export const RATE_LIMIT_MESSAGE = 'Rate limit exceeded. Please try again shortly.';

function firstHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}

/**
 * The caller's IP for the chatbot limit: `Edge-Connecting-IP` first, then the leftmost
 * `X-Forwarded-For` address, then the connection's remote address.
 */
export function clientIp(request: FastifyRequest): string {
  const edge = firstHeader(request.headers['edge-connecting-ip']);
  if (edge) return edge;
  const forwarded = firstHeader(request.headers['x-forwarded-for'])?.split(',')[0]?.trim();
  if (forwarded) return forwarded;
  return request.socket?.remoteAddress ?? request.ip;
}

/** Fixed windows per key, in this process. A limit of 0 turns the limit off. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows: FixedWindows;

  constructor(
    private readonly limit: number,
    windowSeconds: number,
    private readonly clock: Clock,
  ) {
    this.windows = new FixedWindows(windowSeconds * 1000);
  }

  async hit(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    if (this.limit === 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.clock.now().getTime();
    const window = this.windows.hit(key, now);
    return { allowed: window.count <= this.limit, retryAfterSeconds: secondsLeft(window, now) };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}

/** An onRequest hook: counts every request before its body is read, so invalid ones count too. */
export function rateLimitHook(limiter: () => RateLimiter) {
  return async (request: FastifyRequest): Promise<void> => {
    const { allowed, retryAfterSeconds } = await limiter().hit(clientIp(request));
    if (!allowed) throw new RateLimitedError(RATE_LIMIT_MESSAGE, retryAfterSeconds);
  };
}
