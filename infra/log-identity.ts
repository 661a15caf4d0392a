import { existsSync } from 'node:fs';
import type { AppConfig } from './config.js';
import type { Logger } from 'pino';
import type { DocumentStore } from './document-store/port.js';
import { sharedSqliteDocumentStore } from './document-store/shared-sqlite.js';
import type { EventStore } from './event-store/port.js';
import { checkedStamp, type LogIdentity, type LogStamp } from './log-stamp.js';
import { eventLogFile, readModelsFile, type Infrastructure } from './select.js';
import type { VectorIndex } from './vector-index/port.js';
import { vectorIndexFile } from './vector-index/select.js';
import { SqliteVectorIndex } from './vector-index/sqlite.js';

/*
 * One log per deployment. What is built from the event log (the read models with their
 * checkpoints, the chatbot's vector index) records the identity of the log it was built from
 * (EventStore.identity): the first start on an empty or older store writes it, and a start whose
 * log is another refuses before it folds or serves anything. Two logs feeding one MongoDB
 * database (or one Elasticsearch index) would otherwise mix their records silently: ids and
 * slugs of one log overwrite, or collide with, the other's.
 */

/** A URL without its password and options (which may hold secrets): `postgres://app@db:5432/collections`. */
export function withoutSecrets(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length).split(/[?#]/, 1)[0];
  const at = rest.lastIndexOf('@');
  const user = at >= 0 ? rest.slice(0, at).split(':', 1)[0] : '';
  return `${scheme}${user ? `${user}@` : ''}${rest.slice(at + 1)}`;
}

/** The configured event log, as a message names it. */
export function logDescription(config: AppConfig): string {
  if (config.eventStoreUrl) return withoutSecrets(config.eventStoreUrl);
  return eventLogFile(config);
}

/** The configured read models, as a message names them. */
export function readModelsDescription(config: AppConfig): string {
  return config.mongoUrl
    ? `the read models in ${withoutSecrets(config.mongoUrl)}`
    : `the read models in ${readModelsFile(config)}`;
}

/** The configured vector index, as a message names it (plural, as the read models: "were built"). */
export function vectorIndexDescription(config: AppConfig): string {
  return config.elasticsearchUrl
    ? `the chunks of the vector index ${config.elasticsearchIndex} in ${withoutSecrets(config.elasticsearchUrl)}`
    : `the chunks of the vector index in ${vectorIndexFile(config)}`;
}

/** The log a process runs on: its identity, read (or made) in the log, and its description. */
export async function logIdentityOf(eventStore: EventStore, config: AppConfig): Promise<LogIdentity> {
  return { id: await eventStore.identity(), description: logDescription(config) };
}

export function stampOf(log: LogIdentity, at: Date): LogStamp {
  return { log: log.id, description: log.description, stamped_at: at.toISOString() };
}

/** A store built from a log: what it is called in a message, its stamp, and the way out of a refusal. */
export interface StampedStore {
  /** Plural, as the message says "were built from": `the read models in /data/read-models.sqlite`. */
  what: string;
  /** What to do when the store was built from another log: one or two sentences. */
  remedy: string;
  read(): Promise<LogStamp | null>;
  /** Writes the stamp unless the store has one, answering the one it has then (another server's, should it have come first). */
  claim(stamp: LogStamp): Promise<LogStamp>;
  /** Writes the stamp over any other. */
  write(stamp: LogStamp): Promise<void>;
}

/** A start refused: the store was built from another log than the process's. */
export class OtherLogError extends Error {
  constructor(
    readonly store: string,
    readonly stamp: LogStamp,
    readonly log: LogIdentity,
    remedy: string,
  ) {
    super(
      `Refusing to start: ${store} were built from the event log ${stamp.log} (${stamp.description}), ` +
        `but this server's event log is ${log.id} (${log.description}). Two logs feeding one store mix ` +
        `their records (ids, slugs). ${remedy} See docs/PRODUCTION.md, "One log per deployment".`,
    );
    this.name = 'OtherLogError';
  }
}

/**
 * Holds a store to the log: an unstamped one (new, emptied, or made before stamps) is stamped
 * with it and answers 'stamped'; one stamped with it answers 'same'; one stamped with another
 * log throws OtherLogError, writing nothing. The stamp is claimed, not read then written: of
 * servers on two logs starting at once on an empty store, one stamps it and the other is refused.
 */
export async function holdToLog(store: StampedStore, log: LogIdentity, at: Date): Promise<'stamped' | 'same'> {
  const found = await store.read();
  const stamp = found ?? (await store.claim(stampOf(log, at)));
  if (stamp.log !== log.id) throw new OtherLogError(store.what, stamp, log, store.remedy);
  return found === null ? 'stamped' : 'same';
}

/** Where the read models keep their stamp: a collection beside the checkpoints, dropped with them. */
const LOG_STAMPS = '_log_identity';
const STAMP_ID = 'log';

interface StampDoc {
  _id: string;
  [key: string]: unknown;
}

/**
 * The read models' stamp, kept through the document-store port (so SQLite and MongoDB share
 * this code): one document of its own collection. A rebuild's drop removes it with the rest, and
 * the rebuild stamps its log again.
 */
export function readModelsStamp(documents: DocumentStore, config: AppConfig): StampedStore {
  const stamps = () => documents.collection<StampDoc>(LOG_STAMPS);
  return {
    what: readModelsDescription(config),
    remedy:
      'Point EVENTSTORE_URL (or DATA_DIR) at the log they were built from, give this server read models of its own ' +
      '(MONGO_URL), or rebuild them from this log with `npm run rebuild`.',
    async read() {
      const doc = await stamps().findOne({ _id: STAMP_ID });
      if (!doc) return null;
      const { _id, ...stamp } = doc;
      return checkedStamp(stamp, 'the read models');
    },
    async claim(stamp) {
      if (await stamps().insert({ _id: STAMP_ID, ...stamp })) return stamp;
      const kept = await this.read();
      if (!kept) throw new Error(`${this.what} refused a log stamp but hold none.`);
      return kept;
    },
    async write(stamp) {
      await stamps().put({ _id: STAMP_ID, ...stamp });
    },
  };
}

/** The vector index's stamp (VectorIndex.logStamp). */
export function vectorIndexStamp(
  index: Pick<VectorIndex, 'logStamp' | 'stampLog' | 'claimLog'>,
  config: AppConfig,
): StampedStore {
  return {
    what: vectorIndexDescription(config),
    remedy:
      'Give this server a vector index of its own (ELASTICSEARCH_INDEX), or index the collection again from ' +
      'this log with `npm run reindex`.',
    read: () => index.logStamp(),
    claim: (stamp) => index.claimLog(stamp),
    write: (stamp) => index.stampLog(stamp),
  };
}

/**
 * A start's first step (app/runtime.ts): the read models are held to the log before anything
 * folds or serves. On a refusal (or a log that cannot be reached) the infrastructure is closed,
 * so the process can exit.
 */
export async function holdReadModelsToLog(
  config: AppConfig,
  infra: Pick<Infrastructure, 'eventStore' | 'documents' | 'close'>,
  at: Date,
): Promise<void> {
  try {
    await holdToLog(readModelsStamp(infra.documents, config), await logIdentityOf(infra.eventStore, config), at);
  } catch (error) {
    await infra.close().catch(() => undefined);
    throw error;
  }
}

/**
 * A rebuild's first step (app/runtime.ts, bin/rebuild.ts): read models of another log are
 * dropped whole (what a rebuild keeps too: it is that log's work) before anything folds into
 * them. The rebuild stamps them with its log once it has replayed it.
 */
export async function dropReadModelsOfAnotherLog(
  config: AppConfig,
  infra: Pick<Infrastructure, 'eventStore' | 'documents' | 'close'>,
  logger: Logger,
): Promise<void> {
  try {
    const stamps = readModelsStamp(infra.documents, config);
    const [stamp, log] = await Promise.all([stamps.read(), logIdentityOf(infra.eventStore, config)]);
    if (stamp === null || stamp.log === log.id) return;
    logger.warn(
      { builtFrom: stamp, log },
      `${stamps.what} were built from the event log ${stamp.log} (${stamp.description}): dropped, to be rebuilt from this server's event log ${log.id} (${log.description})`,
    );
    await infra.documents.dropAll();
  } catch (error) {
    await infra.close().catch(() => undefined);
    throw error;
  }
}

/**
 * After a restore, which makes a new log: the read side put back from the archive into
 * `config.dataDir` (SQLite files) is stamped with it, the archive's snapshots holding the
 * stamp of the log they were built from. Read models in MongoDB and an Elasticsearch index are
 * not restored: the first start holds them to the new log.
 */
export async function stampRestoredReadSide(config: AppConfig, log: LogIdentity, at: Date): Promise<void> {
  const stamp = stampOf(log, at);
  if (!config.mongoUrl && existsSync(readModelsFile(config))) {
    const documents = sharedSqliteDocumentStore(readModelsFile(config));
    try {
      await readModelsStamp(documents, config).write(stamp);
    } finally {
      await documents.close();
    }
  }
  if (!config.elasticsearchUrl && existsSync(vectorIndexFile(config))) {
    const index = new SqliteVectorIndex(vectorIndexFile(config));
    try {
      await index.stampLog(stamp);
    } finally {
      await index.close();
    }
  }
}
