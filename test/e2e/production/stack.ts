import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freshSchemaUrl } from '../../infra/event-store/postgres-schemas.js';

import type { ServerProcess } from '../process.js';

export { freshDatabase } from '../../infra/event-store/postgres-schemas.js';

/** The variables of the production engines, as .ci/run exports them (stack/up.sh's env file). */
const REQUIRED = ['KAFKA_BROKERS', 'MONGO_URL', 'ELASTICSEARCH_URL', 'REDIS_URL'] as const;

/** tap's skip option: a reason when an engine's variable is unset, false when every one is there. */
export function skipUnlessStack(): string | false {
  const missing = REQUIRED.filter((name) => !process.env[name]);
  return missing.length === 0
    ? false
    : `the production engines are not configured (${missing.join(', ')} unset): run \`npm run stack:up\` and source /tmp/collections-stack/env`;
}

/**
 * The production variables for one deployment of a test run. DATA_DIR names the Kafka topic (its
 * SQLite log, unless the test sets EVENTSTORE_URL); the MongoDB database, which names the groups,
 * the BullMQ prefix and the Redis keys, and the Elasticsearch index are named here, fresh, so
 * reruns and parallel files never read each other's documents. Pass the same `name` for servers
 * of one deployment with DATA_DIRs of their own.
 */
export interface StackEnv extends Record<string, string> {
  DATA_DIR: string;
  KAFKA_BROKERS: string;
  MONGO_URL: string;
  ELASTICSEARCH_URL: string;
  ELASTICSEARCH_INDEX: string;
  REDIS_URL: string;
}

export function stackEnv(dataDir: string, name = `e2e_${randomBytes(6).toString('hex')}`): StackEnv {
  const mongo = new URL(process.env.MONGO_URL ?? '');
  mongo.pathname = `/${name}`;
  return {
    DATA_DIR: dataDir,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
    MONGO_URL: mongo.toString(),
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? '',
    ELASTICSEARCH_INDEX: `chatbot-chunks-${name}`,
    REDIS_URL: process.env.REDIS_URL ?? '',
  };
}

/**
 * With PG_EVENTSTORE_URL set (.ci/run sets it to stack:up's database), a deployment's event log,
 * stored files and question log in PostgreSQL, in a schema of its own (dropped on teardown);
 * unset, none (they stay DATA_DIR's SQLite files and folder).
 */
export function postgresEnv(t: {
  teardown(fn: () => unknown): void;
}): { EVENTSTORE_URL: string; FILES_URL: string; QUESTION_LOG_URL: string } | Record<string, never> {
  const base = process.env.PG_EVENTSTORE_URL;
  if (!base) return {};
  const { url } = freshSchemaUrl(t, base);
  return { EVENTSTORE_URL: url, FILES_URL: url, QUESTION_LOG_URL: url };
}

/** Polls `read` until `done` holds of its value or the wait is over; the last value either way. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, waitMs = 30_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    value = await read();
  }
  return value;
}

export interface SearchBody {
  results: { url: string }[];
  total: number;
  /** The status and body of a refused search (a 503 while an engine is slow under load). */
  refused?: string;
}

/**
 * A chatbot search's answer as its body; a refusal as no results and what was refused, so that
 * `eventually` asks again and, when the refusal lasts, the test's message shows it.
 */
export function searchBody(answer: { status: number; body: unknown }): SearchBody {
  return answer.status === 200
    ? (answer.body as SearchBody)
    : { results: [], total: 0, refused: `${answer.status} ${JSON.stringify(answer.body)}` };
}

/**
 * A DATA_DIR no earlier run used: tap's test directory has the same path at every run, and the
 * Kafka topic named after it would still hold the last run's log.
 */
export function freshDataDir(testDir: string): string {
  const dir = join(testDir, randomBytes(6).toString('hex'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A server's answer: status, headers and the JSON body (null when empty). */
export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A JSON request to one server of a deployment. */
export async function send(
  server: ServerProcess,
  method: string,
  path: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}
