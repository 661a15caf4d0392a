import pg from 'pg';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { VersionConflictError } from '../errors.js';
import { checked } from '../checked-json.js';
import { pollingSubscription } from './polling-subscription.js';
import {
  EventMetadataSchema,
  type AllEventsHandler,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type StoredEvent,
  type Subscription,
} from './port.js';
import { quoteIdentifier } from '../postgres-errors.js';
import { columnReaders, createSchemaOnce, inTransaction, isRecord, translatorFor } from '../postgres-adapter.js';

const DEPENDENCY = 'PostgreSQL';
/** The class of this adapter's advisory locks (the other key is the schema's hash). */
const LOCK_CLASS = 0x65766e74; // 'evnt'
const LISTEN_RETRY_MS = 1000;
const COLUMNS = 'position, stream_id, stream_version, type, data, metadata';

export interface PostgresEventStoreOptions {
  /** The schema holding the log (created on first use); 'public' by default. Tests use one each. */
  schema?: string;
  /** Pool size; 10 by default. */
  maxConnections?: number;
}

// ---- rows read back are checked, not cast ----

const { integer, text } = columnReaders('event log');

function metadataOf(value: unknown): EventMetadata {
  const metadata = checked(EventMetadataSchema, value);
  if (metadata.ok) return metadata.value;
  throw new TypeError(`PostgreSQL event log: metadata is not an event's (${metadata.problem}).`);
}

function toStored(row: unknown): StoredEvent {
  if (!isRecord(row)) throw new TypeError('PostgreSQL event log: a row is not an object.');
  return {
    position: integer(row.position, 'position'),
    streamId: text(row.stream_id, 'stream_id'),
    streamVersion: integer(row.stream_version, 'stream_version'),
    type: text(row.type, 'type'),
    data: row.data,
    metadata: metadataOf(row.metadata),
  };
}

function encode(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new TypeError('An event needs data and metadata that JSON can hold.');
  return json;
}

// ---- driver errors translated at the boundary ----

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '23505';
}

const translate = translatorFor(DEPENDENCY);

/**
 * The production event store on PostgreSQL: one table, created on first use. Appends take one
 * transaction-scoped advisory lock per log before they read the stream's version and the log's
 * last position, so appends commit one after another in position order, from any number of
 * processes: a reader never sees a position while a smaller one is still to commit, and a
 * subscriber reading `position > checkpoint` loses nothing. Positions have no gaps (a refused
 * append takes none). Subscriptions poll the log, woken by this process's commits at once and by
 * other processes' through LISTEN/NOTIFY.
 */
export class PostgresEventStore implements EventStore {
  private readonly pool: pg.Pool;
  private readonly connectionString: string;
  private readonly schema: string;
  private readonly table: string;
  /** The one-row table of the log's identity (EventStore.identity), beside the events. */
  private readonly identityTable: string;
  private identityRead: Promise<string> | null = null;
  /** The NOTIFY channel of this log. */
  private readonly channel: string;
  private ready: Promise<void> | null = null;
  private readonly listeners = new Set<(committed: StoredEvent[]) => void>();
  /** The highest position told to listeners: they are only ever told increasing positions. */
  private lastTold = 0;
  private listenClient: pg.Client | null = null;
  private listenRetry: NodeJS.Timeout | null = null;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  constructor(connectionString: string, options: PostgresEventStoreOptions = {}) {
    this.connectionString = connectionString;
    this.schema = options.schema ?? 'public';
    this.table = `${quoteIdentifier(this.schema)}.events`;
    this.identityTable = `${quoteIdentifier(this.schema)}.log_identity`;
    this.channel = `${this.schema}.events`.slice(0, 63);
    this.pool = new pg.Pool({
      connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5000,
    });
    // An idle connection the server dropped: the pool discards it; the next query connects again.
    this.pool.on('error', () => undefined);
  }

  /** Creates the schema and table once per store (and once across processes, under a lock). */
  private schemaReady(): Promise<void> {
    this.ready ??= this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, `schema:${this.schema}`]);
      await createSchemaOnce(client, this.schema);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.table} (
        position bigint PRIMARY KEY,
        stream_id text NOT NULL,
        stream_version integer NOT NULL,
        type text NOT NULL,
        data json NOT NULL,
        metadata json NOT NULL,
        UNIQUE (stream_id, stream_version)
      )`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.identityTable} (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        id text NOT NULL
      )`);
    }).catch((error: unknown) => {
      this.ready = null; // tried again by the next call
      throw error;
    });
    return this.ready;
  }

  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, translate, work);
  }

  private async query(sql: string, values: unknown[] = []): Promise<unknown[]> {
    try {
      await this.schemaReady();
      const result = await this.pool.query(sql, values);
      return result.rows;
    } catch (error) {
      throw translate(error);
    }
  }

  private async currentVersion(streamId: string): Promise<number> {
    const [row] = await this.query(
      `SELECT coalesce(max(stream_version), 0) AS v FROM ${this.table} WHERE stream_id = $1`,
      [streamId],
    );
    return integer(isRecord(row) ? row.v : undefined, 'stream version');
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) {
      return { streamVersion: await this.currentVersion(streamId), position: await this.lastPosition() };
    }
    const types = events.map((event) => event.type);
    const data = events.map((event) => encode(event.data));
    const metadata = events.map((event) => encode(event.metadata));
    await this.schemaReady();
    let outcome: { version: number; first: number } | { conflict: number };
    try {
      outcome = await this.transaction(async (client) => {
        // One append at a time per log, released at commit: commit order is position order.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, `log:${this.schema}`]);
        // A statement of its own, so its snapshot is taken once the lock is held. The notification
        // (to other processes' subscribers) is sent at commit, and not at all on a rollback.
        const { rows } = await client.query(
          `SELECT (SELECT coalesce(max(stream_version), 0) FROM ${this.table} WHERE stream_id = $1) AS version,
                  (SELECT coalesce(max(position), 0) FROM ${this.table}) AS position,
                  pg_notify($2, '') AS notified`,
          [streamId, this.channel],
        );
        const head: unknown = rows[0];
        if (!isRecord(head)) throw new TypeError('PostgreSQL event log: no head row.');
        const version = integer(head.version, 'stream version');
        if (expected !== 'any' && expected !== version) return { conflict: version };
        const last = integer(head.position, 'position');
        await client.query(
          `INSERT INTO ${this.table} (${COLUMNS})
           SELECT $1::bigint + i, $2, $3::integer + i, t, d::json, m::json
           FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS x(t, d, m, i)`,
          [last, streamId, version, types, data, metadata],
        );
        return { version: version + events.length, first: last + 1 };
      });
    } catch (error) {
      // Only a writer that bypasses the lock can collide here; it is still a conflict.
      if (isUniqueViolation(error))
        throw new VersionConflictError(streamId, expected, await this.currentVersion(streamId));
      throw error;
    }
    if ('conflict' in outcome) throw new VersionConflictError(streamId, expected, outcome.conflict);
    const { version, first } = outcome;
    const firstVersion = version - events.length + 1;
    this.tell(
      events.map((event, i) => ({
        position: first + i,
        streamId,
        streamVersion: firstVersion + i,
        type: event.type,
        // Decoded from the JSON written, so subscribers see what a read of the log returns.
        data: JSON.parse(data[i]) as unknown,
        metadata: metadataOf(JSON.parse(metadata[i])),
      })),
    );
    return { streamVersion: version, position: first + events.length - 1 };
  }

  /**
   * Tells this process's subscribers of a commit. Commits of concurrent appends may be answered
   * out of order: one that does not follow what was told is told as a wake-up alone (the
   * subscriber reads it from the log), so what is told always increases.
   */
  private tell(committed: StoredEvent[]): void {
    const increasing = committed.length > 0 && committed[0].position > this.lastTold;
    if (committed.length > 0) this.lastTold = Math.max(this.lastTold, committed[committed.length - 1].position);
    for (const listener of this.listeners) listener(increasing ? committed : []);
  }

  async readStream(streamId: string): Promise<StoredEvent[]> {
    const rows = await this.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE stream_id = $1 ORDER BY stream_version`, [
      streamId,
    ]);
    return rows.map(toStored);
  }

  async readLastEvent(streamId: string): Promise<StoredEvent | null> {
    const rows = await this.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1`,
      [streamId],
    );
    return rows.length > 0 ? toStored(rows[0]) : null;
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE position > $1 ORDER BY position LIMIT $2`,
      [after, limit],
    );
    return rows.map(toStored);
  }

  async lastPosition(): Promise<number> {
    const [row] = await this.query(`SELECT coalesce(max(position), 0) AS p FROM ${this.table}`);
    return integer(isRecord(row) ? row.p : undefined, 'position');
  }

  async countEvents(): Promise<number> {
    const [row] = await this.query(`SELECT count(*) AS n FROM ${this.table}`);
    return integer(isRecord(row) ? row.n : undefined, 'count');
  }

  /**
   * Made by the first call on a log that has none (a new one, or one made before identities);
   * ON CONFLICT DO NOTHING makes processes that ask at once agree on the first one committed.
   */
  identity(): Promise<string> {
    this.identityRead ??= (async () => {
      await this.query(`INSERT INTO ${this.identityTable} (one, id) VALUES (true, $1) ON CONFLICT DO NOTHING`, [
        randomUUID(),
      ]);
      const [row] = await this.query(`SELECT id FROM ${this.identityTable} WHERE one`);
      return text(isRecord(row) ? row.id : undefined, 'log identity');
    })().catch((error: unknown) => {
      this.identityRead = null; // asked again by the next call
      throw error;
    });
    return this.identityRead;
  }

  subscribeToAll(after: number, handler: AllEventsHandler): Subscription {
    this.listen();
    const polling = pollingSubscription(this, after, handler, (committed) => {
      this.listeners.add(committed);
      return () => this.listeners.delete(committed);
    });
    const subscription: Subscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await polling.stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * One connection LISTENing for other processes' commits, opened with the first subscription;
   * each notification wakes every subscriber. Lost, it is opened again after a pause; meanwhile
   * the subscriptions' idle poll still finds the events.
   */
  private listen(): void {
    if (this.listenClient || this.listenRetry || this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    this.listenClient = client;
    const retry = () => {
      if (this.listenClient !== client) return;
      this.listenClient = null;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.listenRetry = setTimeout(() => {
        this.listenRetry = null;
        if (this.listeners.size > 0) this.listen();
      }, LISTEN_RETRY_MS);
      this.listenRetry.unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', () => this.tell([]));
    void client
      .connect()
      .then(() => client.query(`LISTEN ${quoteIdentifier(this.channel)}`))
      // Whatever was committed while connecting is found by the poll this wake-up starts.
      .then(() => this.tell([]))
      .catch(retry);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    if (this.listenRetry) clearTimeout(this.listenRetry);
    this.listenRetry = null;
    const client = this.listenClient;
    this.listenClient = null;
    this.listeners.clear();
    await client?.end().catch(() => undefined);
    await this.pool.end();
  }
}
