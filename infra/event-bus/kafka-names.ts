import { resolve } from 'node:path';
import { deploymentName, digest, type DeploymentPlaces } from '../deployment-name.js';

export interface KafkaNames {
  /** The topic the log is forwarded to. */
  topic: string;
  /** Put before every consumer group's name. */
  groupPrefix: string;
}

/**
 * One broker may serve several deployments (test servers, a restore's staging copy, other apps):
 * fixed names would mix their logs in one topic, where each forwarder resumes from another's
 * position and each runner folds another's events. So the topic is named after the log it carries
 * (EVENTSTORE_URL, else the data directory's own log), and the groups after the read models they
 * fill (the MongoDB database of MONGO_URL, else the data directory: infra/deployment-name.ts);
 * servers sharing both share both, as they share the log.
 */
export function kafkaNamesFor(options: DeploymentPlaces & { eventStoreUrl?: string }): KafkaNames {
  const log = options.eventStoreUrl ? `eventstore:${options.eventStoreUrl}` : `sqlite:${resolve(options.dataDir)}`;
  return { topic: `collections-events-${digest(log)}`, groupPrefix: `${deploymentName(options)}.` };
}
