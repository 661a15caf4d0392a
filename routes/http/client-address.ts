import { compileTrustedProxies, type TrustedProxy } from '../../infra/net/trusted-proxies.js';
import type { FastifyRequest } from 'fastify';

/** What this needs of the configuration (infra/config.ts reads TRUST_PROXY with compileTrustedProxies). */
interface TrustProxySetting {
  readonly trustProxy: readonly string[];
}

const compiled = new WeakMap<TrustProxySetting, TrustedProxy | null>();

/** The trusted proxies of a configuration, compiled once. */
export function trustedProxies(config: TrustProxySetting): TrustedProxy | null {
  if (!compiled.has(config)) compiled.set(config, compileTrustedProxies(config.trustProxy));
  return compiled.get(config) ?? null;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}

/**
 * The caller's address for per-client limits and counts.
 *
 * Without TRUST_PROXY (the chatbot seed's rule): `Edge-Connecting-IP` first, then the leftmost
 * `X-Forwarded-For` address, then the connection's remote address. Any client can set those
 * headers; behind a CDN that sets them they name the real client.
 *
 * With TRUST_PROXY only headers set by the listed proxies are believed: `Edge-Connecting-IP`
 * when the connection comes from a trusted proxy, else Fastify's request.ip, which walks
 * `X-Forwarded-For` from the right past trusted proxies to the first address that is not one.
 */
export function clientAddress(request: FastifyRequest, trust: TrustedProxy | null): string {
  const remote = request.raw.socket?.remoteAddress;
  if (trust) {
    const edge =
      remote !== undefined && trust(remote, 0) ? firstHeader(request.headers['edge-connecting-ip']) : undefined;
    return edge ?? request.ip;
  }
  const edge = firstHeader(request.headers['edge-connecting-ip']);
  if (edge) return edge;
  const forwarded = firstHeader(request.headers['x-forwarded-for'])?.split(',')[0]?.trim();
  if (forwarded) return forwarded;
  return remote ?? request.ip;
}
