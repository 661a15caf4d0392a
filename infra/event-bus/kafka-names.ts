import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

export interface KafkaNames {
  /** The topic the log is forwarded to. */
  topic: string;
  /** Put before every consumer group's name. */
  groupPrefix: string;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * One broker may serve several deployments (test servers, a restore's staging copy, other apps):
 * fixed names would mix their logs in one topic, where each forwarder resumes from another's
 * position and each runner folds another's events. So the topic is named after the log it carries
 * (EVENTSTORE_URL, else the data directory's own log), and the groups after the data directory
 * whose read models they fill; instances sharing both share both, as they share the log.
 */
export function kafkaNamesFor(options: { eventStoreUrl?: string; dataDir: string }): KafkaNames {
  const dataDir = resolve(options.dataDir);
  const log = options.eventStoreUrl ? `eventstore:${options.eventStoreUrl}` : `sqlite:${dataDir}`;
  return { topic: `collections-events-${digest(log)}`, groupPrefix: `collections-${digest(dataDir)}.` };
}
