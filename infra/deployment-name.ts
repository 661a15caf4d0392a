import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { mongoDatabaseAddress } from './document-store/mongo-url.js';

/** What a deployment's shared state is told apart by: the read models' place. */
export interface DeploymentPlaces {
  dataDir: string;
  /** MONGO_URL: the read models are that database's, whatever DATA_DIR each server has. */
  mongoUrl?: string;
}

export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * The name of one deployment's state on the engines several deployments may share: the Kafka
 * consumer groups (infra/event-bus/kafka-names.ts) and the keys in Redis (queues, sessions,
 * failed logins, rate limits), `collections-<hash>`.
 *
 * A deployment is the read models its servers fill: the MongoDB database when MONGO_URL is set
 * (its hosts and database, not the credentials or options), so servers on separate hosts, each
 * with a DATA_DIR of its own, fold the log into it once and share sessions and jobs; else the
 * data directory, whose embedded read models only the servers on it share (the name is the one
 * every version gave such a deployment).
 */
export function deploymentName(places: DeploymentPlaces): string {
  const readModels = places.mongoUrl ? mongoDatabaseAddress(places.mongoUrl) : resolve(places.dataDir);
  return `collections-${digest(readModels)}`;
}
