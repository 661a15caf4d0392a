import proxyaddr from '@fastify/proxy-addr';

/** Whether the address at this hop (0: the connection's peer) is a proxy whose headers are believed. */
export type TrustedProxy = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY's list compiled by Fastify's own proxy-addr: addresses, CIDRs and the names
 * `loopback`, `linklocal`, `uniquelocal`. Throws with the entry's name when one is not valid.
 */
export function compileTrustedProxies(entries: readonly string[]): TrustedProxy | null {
  if (entries.length === 0) return null;
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new Error(
        `TRUST_PROXY: "${entry}" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal.`,
      );
    }
  }
  return proxyaddr.compile([...entries]);
}
