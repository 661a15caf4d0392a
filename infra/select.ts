import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isPostgresUrl, type AppConfig } from './config.js';
import { postgresLocation } from './postgres-url.js';
import type { Clock } from './clock/port.js';
import type { DocumentStore } from './document-store/port.js';
import { sharedSqliteDocumentStore } from './document-store/shared-sqlite.js';
import { textIndexFile } from './document-store/sqlite-tables.js';
import type { EventBus } from './event-bus/port.js';
import { EmbeddedEventBus } from './event-bus/embedded.js';
import { dependencyAddress } from './dependency-address.js';
import { deploymentName } from './deployment-name.js';
import { DependencyUnavailableError } from './errors.js';
import type { EventStore } from './event-store/port.js';
import type { FileAreas } from './file-storage/port.js';
import { createFileAreas } from './file-storage/select.js';
import type { BackupArchives } from './backup-archives/port.js';
import { createBackupArchives } from './backup-archives/select.js';
import { SqliteEventStore } from './event-store/sqlite.js';
import type { JobQueue } from './job-queue/port.js';
import { InProcessJobQueue } from './job-queue/in-process.js';

export interface Infrastructure {
  eventStore: EventStore;
  documents: DocumentStore;
  bus: EventBus;
  jobs: JobQueue;
  /** The stored files' areas (uploads, assets, media derivatives): DATA_DIR/files, or FILES_URL's database. */
  files: FileAreas;
  /** Where backup archives live: DATA_DIR/backups, or FILES_URL's database beside the stored files. */
  backupArchives: BackupArchives;
  /**
   * With REDIS_URL, the one connection of the request-time features (sessions, failed logins,
   * rate limits), handed to each; null on the embedded defaults. BullMQ keeps its own.
   */
  requestRedis: Redis | null;
  close(): Promise<void>;
}

export function eventLogFile(config: AppConfig): string {
  return join(config.dataDir, 'events.sqlite');
}

/** The embedded read models: persistent, so a start resumes from the projections' checkpoints. */
export function readModelsFile(config: AppConfig): string {
  return join(config.dataDir, 'read-models.sqlite');
}

/** The read models' text indexes, written by a thread of their own (infra/document-store/sqlite-text-index.ts). */
export function readModelsTextFile(config: AppConfig): string {
  return textIndexFile(readModelsFile(config));
}

/** The configured event store alone, for a CLI that only reads and appends (bin/projections.ts). */
export async function createEventStore(config: AppConfig): Promise<EventStore> {
  if (config.eventStoreUrl && isPostgresUrl(config.eventStoreUrl)) {
    // postgres:// or postgresql://: the PostgreSQL adapter, its driver loaded only then.
    const { PostgresEventStore } = await import('./event-store/postgres.js');
    const { connectionString, schema } = postgresLocation(config.eventStoreUrl, 'EVENTSTORE_URL');
    return new PostgresEventStore(connectionString, { schema });
  }
  if (config.eventStoreUrl) {
    // Imported on demand so the gRPC client loads only when EventStoreDB is configured.
    const { EventStoreDbEventStore } = await import('./event-store/eventstoredb.js');
    return new EventStoreDbEventStore(config.eventStoreUrl);
  }
  // Inline commits by default: measured on a two-core virtual machine, handing every group to a
  // commit thread and back cost more of the event loop than the commit (docs/perf-history.md).
  return new SqliteEventStore(
    eventLogFile(config),
    config.eventLogCommits === 'thread' ? { commits: 'thread' } : { checkpointThread: true },
  );
}

/** The read models' store the configuration picks: MONGO_URL's database, else DATA_DIR's SQLite file. */
export async function createDocumentStore(config: AppConfig): Promise<DocumentStore> {
  if (config.mongoUrl) {
    const { MongoDocumentStore } = await import('./document-store/mongo.js');
    return MongoDocumentStore.connect(config.mongoUrl);
  }
  mkdirSync(config.dataDir, { recursive: true });
  return sharedSqliteDocumentStore(readModelsFile(config));
}

async function createEventBus(config: AppConfig, eventStore: EventStore, logger: Logger): Promise<EventBus> {
  if (config.kafkaBrokers && config.kafkaBrokers.length > 0) {
    const { KafkaEventBus } = await import('./event-bus/kafka.js');
    const { kafkaNamesFor } = await import('./event-bus/kafka-names.js');
    // The process id in the client id (and so in the group member's id) tells an operator, and
    // the two-servers test, which server of a deployment holds the group's partition.
    return KafkaEventBus.start({
      brokers: config.kafkaBrokers,
      store: eventStore,
      logger,
      clientId: `collections-backend-${process.pid}`,
      ...kafkaNamesFor(config),
    });
  }
  return new EmbeddedEventBus(eventStore);
}

async function createJobQueue(config: AppConfig, logger: Logger, clock?: Clock): Promise<JobQueue> {
  if (config.redisUrl) {
    const { BullMqJobQueue } = await import('./job-queue/bullmq.js');
    // Never fails the start: with Redis away, requests that need it answer 503 until it is back.
    const queue = await BullMqJobQueue.connect({
      url: config.redisUrl,
      prefix: deploymentName(config),
      onError: (err: Error) => logger.error({ err }, 'job queue (Redis) connection error; retrying'),
      onRecovered: () => logger.info('job queue (Redis) is reachable again'),
    });
    if (!queue.available) logger.warn('Redis is unreachable: the job queue waits for it, jobs are refused until then');
    return queue;
  }
  return new InProcessJobQueue({ clock });
}

/** The variable that points at each production dependency, to name it and its address when it cannot be reached. */
const SETTING_OF: Record<string, { variable: string; value(config: AppConfig): string | undefined }> = {
  EventStoreDB: { variable: 'EVENTSTORE_URL', value: (config) => config.eventStoreUrl },
  PostgreSQL: { variable: 'EVENTSTORE_URL', value: (config) => config.eventStoreUrl },
  MongoDB: { variable: 'MONGO_URL', value: (config) => config.mongoUrl },
  Kafka: { variable: 'KAFKA_BROKERS', value: (config) => config.kafkaBrokers?.join(',') },
  Redis: { variable: 'REDIS_URL', value: (config) => config.redisUrl },
  'vector index': { variable: 'ELASTICSEARCH_URL', value: (config) => config.elasticsearchUrl },
  'file storage': { variable: 'FILES_URL', value: (config) => config.filesUrl },
  // The chatbot module opens it (infra/question-log/select.ts); its name is QUESTION_LOG_DEPENDENCY.
  'question log': { variable: 'QUESTION_LOG_URL', value: (config) => config.questionLogUrl },
};

/**
 * One line an operator can act on, for a dependency found unavailable while starting
 * (connecting, or reading the log to catch up): the dependency, the address it was looked for
 * at and the variable that says so. The address is hosts and ports only
 * (infra/dependency-address.ts): a URL may hold credentials.
 */
export function startupError(error: unknown, config: AppConfig): unknown {
  if (!(error instanceof DependencyUnavailableError)) return error;
  const setting = SETTING_OF[error.dependency];
  const value = setting?.value(config);
  const at = value ? ` at ${dependencyAddress(value)}` : '';
  const hint = setting ? ` Check ${setting.variable} or unset it to use the embedded default.` : '';
  return new DependencyUnavailableError(
    error.dependency,
    `Cannot start: ${error.dependency} is unavailable${at}.${hint}`,
  );
}

async function createRequestRedis(config: AppConfig, logger: Logger): Promise<Redis | null> {
  if (!config.redisUrl) return null;
  const { createRequestRedisClient } = await import('./redis/request-client.js');
  return createRequestRedisClient(config.redisUrl, {
    uses: 'sessions, failed-login counts and rate limits',
    logger,
    connectionName: `${deploymentName(config)}:requests`,
  });
}

/** Picks each port's adapter from the environment: the embedded default unless its URL is set. */
/** `clock`: the runtime's, which the embedded job queue's schedules are timed by. */
export async function createInfrastructure(config: AppConfig, logger: Logger, clock?: Clock): Promise<Infrastructure> {
  const opened: { close(): Promise<void> }[] = [];
  const open = async <T extends { close(): Promise<void> }>(adapter: Promise<T>): Promise<T> => {
    const ready = await adapter;
    opened.push(ready);
    return ready;
  };
  let eventStore: EventStore, documents: DocumentStore, bus: EventBus, jobs: JobQueue, files: FileAreas;
  let backupArchives: BackupArchives;
  try {
    eventStore = await open(createEventStore(config));
    documents = await open(createDocumentStore(config));
    bus = await open(createEventBus(config, eventStore, logger));
    jobs = await open(createJobQueue(config, logger, clock));
    files = await open(createFileAreas(config));
    backupArchives = await open(createBackupArchives(config));
  } catch (error) {
    // One dependency is down: release the ones already connected so the process can exit.
    for (const adapter of opened.reverse()) await adapter.close().catch(() => undefined);
    throw startupError(error, config);
  }
  // Connects on first use, so it cannot fail here.
  const requestRedis = await createRequestRedis(config, logger);
  return {
    eventStore,
    documents,
    bus,
    jobs,
    files,
    backupArchives,
    requestRedis,
    async close() {
      await jobs.close();
      await bus.close();
      await documents.close();
      await eventStore.close();
      await files.close();
      await backupArchives.close();
      if (requestRedis) await (await import('./redis/request-client.js')).closeRequestRedisClient(requestRedis);
    },
  };
}
