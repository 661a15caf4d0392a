import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadConfig } from '../../infra/config.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import type { FileArea } from '../../infra/file-storage/port.js';
import { createDocumentStore } from '../../infra/select.js';
import { PostgresFileAreas } from '../../infra/file-storage/postgres.js';
import { isRecord } from '../../infra/postgres-adapter.js';
import { postgresLocation } from '../../infra/postgres-url.js';
import { freshSchemaUrl } from '../infra/event-store/postgres-schemas.js';
import { stackEnv } from './production/stack.js';

/**
 * `E2E_TOPOLOGY=two-hosts` (issue 50, item 3): the end-to-end suite's servers run as one deployment
 * on two hosts. Each DATA_DIR a test names becomes a deployment of its own on the production
 * engines (the event log, files and questions in a PostgreSQL schema of PG_EVENTSTORE_URL, read
 * models in MongoDB, the topic in Kafka, the index in Elasticsearch, jobs and sessions in Redis);
 * `startServer` starts two servers on it, A on the test's DATA_DIR and B on a DATA_DIR of its own,
 * behind a balancer that sends each request to the next of them in turn. Unset, nothing changes.
 */
export const TWO_HOSTS = process.env.E2E_TOPOLOGY === 'two-hosts';

/** Why the topology cannot run here, or null when it can. */
export function topologyUnavailable(): string | null {
  const missing = ['KAFKA_BROKERS', 'MONGO_URL', 'ELASTICSEARCH_URL', 'REDIS_URL', 'PG_EVENTSTORE_URL'].filter(
    (name) => !process.env[name],
  );
  return missing.length === 0
    ? null
    : `E2E_TOPOLOGY=two-hosts needs the production engines: ${missing.join(', ')} unset`;
}

/** The variables that name where a deployment's state lives: a test that sets one keeps its own. */
export const ENGINE_VARIABLES = [
  'EVENTSTORE_URL',
  'FILES_URL',
  'QUESTION_LOG_URL',
  'KAFKA_BROKERS',
  'MONGO_URL',
  'REDIS_URL',
  'ELASTICSEARCH_URL',
];

const deployments = new Map<string, Record<string, string>>();

/** The engines' variables of the deployment a DATA_DIR stands for: the same for every CLI and server given it. */
function deploymentOf(dataDir: string): Record<string, string> {
  const key = resolve(dataDir);
  let env = deployments.get(key);
  if (!env) {
    const { schema, url } = freshSchemaUrl(t, process.env.PG_EVENTSTORE_URL ?? '');
    const name = `e2e_${createHash('sha256').update(`${key}:${schema}`).digest('hex').slice(0, 12)}`;
    const { DATA_DIR: _dataDir, ...engines } = stackEnv(key, name);
    env = { ...engines, EVENTSTORE_URL: url, FILES_URL: url, QUESTION_LOG_URL: url };
    deployments.set(key, env);
  }
  return env;
}

/**
 * A spawned CLI's or server's variables in this topology: the test's own, plus its DATA_DIR's
 * deployment on the engines, unless the test names an engine itself (a production test does).
 */
export function inTopology(env: Record<string, string>): Record<string, string> {
  if (!TWO_HOSTS || !env.DATA_DIR || ENGINE_VARIABLES.some((name) => name in env)) return env;
  const unavailable = topologyUnavailable();
  if (unavailable) throw new Error(unavailable);
  return { ...deploymentOf(env.DATA_DIR), ...env };
}

/** True when `startServer` is to start two hosts for these (test-given) variables. */
export function wantsTwoHosts(env: Record<string, string>): boolean {
  return TWO_HOSTS && Boolean(env.DATA_DIR) && !ENGINE_VARIABLES.some((name) => name in env);
}

/** The second host's DATA_DIR: beside the first, never the same. */
export function secondHostDataDir(dataDir: string): string {
  return `${resolve(dataDir)}-host-b`;
}

/**
 * A round-robin load balancer in a process of its own (test/e2e/balancer.ts) on `port`: a test
 * may block its own event loop (spawnSync of a harvester) while the balancer serves.
 */
export async function startBalancer(port: number, upstreams: string[]): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', BALANCER, String(port), ...upstreams], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((ready, failed) => {
    child.stdout.once('data', () => ready());
    child.once('exit', (code) => failed(new Error(`the balancer exited (${code}) before listening`)));
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

const BALANCER = join(dirname(fileURLToPath(import.meta.url)), 'balancer.ts');

/**
 * The files a deployment holds in an area, or (`tmp`) its uploads not yet committed: the folders
 * under DATA_DIR/files on the embedded defaults, the rows of its PostgreSQL schema in the topology.
 */
export async function storedFileNames(dataDir: string, area: FileArea | 'tmp'): Promise<string[]> {
  if (!TWO_HOSTS) return readdirSync(join(dataDir, 'files', area));
  const { connectionString, schema } = postgresLocation(inTopology({ DATA_DIR: dataDir }).FILES_URL, 'FILES_URL');
  const areas = new PostgresFileAreas(connectionString, { copiesDir: join(dataDir, 'cache', 'files'), schema });
  try {
    if (area !== 'tmp') return (await areas.area(area).list()).map((file) => file.storedName);
    const { rows } = await areas.query(`SELECT name FROM ${areas.files} WHERE upload IS NOT NULL`);
    return rows.flatMap((row: unknown) => (isRecord(row) && typeof row.name === 'string' ? [row.name] : []));
  } finally {
    await areas.close();
  }
}

/** Works on a deployment's read models through the document-store port: DATA_DIR's SQLite file, or its MongoDB database in the topology. */
export async function withReadModels<T>(dataDir: string, work: (documents: DocumentStore) => Promise<T>): Promise<T> {
  const documents = await createDocumentStore(loadConfig(inTopology({ DATA_DIR: dataDir })));
  try {
    return await work(documents);
  } finally {
    await documents.close();
  }
}
