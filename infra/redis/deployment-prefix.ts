import { createHash } from 'node:crypto';

/**
 * The prefix of one deployment's keys in Redis (queues, sessions, failed logins, rate limits).
 * Jobs act on files in the data directory, so the instances that share a data directory (a shared
 * volume) share keys, and apps with different ones on the same Redis (parallel test servers, say)
 * never see each other's. Here, not in the BullMQ adapter, so the request-time users of Redis do
 * not load BullMQ to name their keys.
 */
export function deploymentPrefix(dataDir: string): string {
  return `collections-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`;
}
