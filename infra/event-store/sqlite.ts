import type Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { VersionConflictError } from '../errors.js';
import { StorageFailureRecord, translateStorageError, type StorageFailure } from '../storage-errors.js';
import { CheckpointRequests } from './checkpoint-requests.js';
import { InlineGroupWriter, type GroupWriter } from './group-writer.js';
import { pollingSubscription } from './polling-subscription.js';
import type {
  AllEventsHandler,
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  StoredEvent,
  Subscription,
} from './port.js';
import {
  logIdentityOf,
  openEventLog,
  streamVersionReader,
  type EncodedEvent,
  type GroupOutcome,
} from './sqlite-log.js';
import { ThreadGroupWriter } from './thread-group-writer.js';

interface EventRow {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  data: string;
  metadata: string;
}

interface PendingAppend {
  streamId: string;
  events: EncodedEvent[];
  expected: ExpectedVersion;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** A row of `SELECT ${COLUMNS}` read with `.raw()`: arrays skip building a row object per event. */
type RawEventRow = [number, string, number, string, string, string];
const COLUMNS = 'position, stream_id, stream_version, type, data, metadata';

function rawToStored(row: RawEventRow): StoredEvent {
  return {
    position: row[0],
    streamId: row[1],
    streamVersion: row[2],
    type: row[3],
    data: JSON.parse(row[4]),
    metadata: JSON.parse(row[5]),
  };
}

function toStored(row: EventRow): StoredEvent {
  return {
    position: row.position,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
  };
}

function encode(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new TypeError('An event needs data and metadata that JSON can hold.');
  return json;
}

export interface SqliteEventStoreOptions {
  /**
   * Where groups commit: on the caller's thread ('inline', the default), or on a worker thread
   * with its own connection ('thread', see ThreadGroupWriter; not possible for ':memory:', which
   * one connection alone sees). Handing each group to a thread and its answer back costs two
   * thread wake-ups, which on some machines (virtual ones especially) cost more than the commit.
   */
  commits?: 'inline' | 'thread';
  /**
   * Inline commits only: the WAL's checkpoints run on a thread of their own (CheckpointRequests),
   * so no commit waits behind a checkpoint's fsyncs. A runtime's store does; the thread script
   * is compiled code, found as the commit thread's is.
   */
  checkpointThread?: boolean;
}

/**
 * The embedded event store: one SQLite file in WAL mode. Appends run in one transaction, so a
 * crash leaves either the whole append or none of it. Reads use this thread's connection.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  /** In-process subscribers, told of every group commit with the events it wrote. */
  private readonly listeners = new Set<(committed: StoredEvent[]) => void>();
  private readonly statements;
  private readonly writer: GroupWriter;
  private readonly currentVersion: (streamId: string) => number;
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  /** Groups sent to the writer and not yet answered. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly failures: StorageFailureRecord;
  private identityRead: string | null = null;

  constructor(file: string, options: SqliteEventStoreOptions = {}) {
    if (options.commits === 'thread' && file === ':memory:')
      throw new TypeError('An in-memory event log cannot be committed from another thread.');
    if (options.checkpointThread && file === ':memory:')
      throw new TypeError('An in-memory event log cannot be checkpointed from another thread.');
    this.db = openEventLog(file);
    this.failures = new StorageFailureRecord(file === ':memory:' ? null : dirname(file));
    this.statements = {
      readStream: this.db.prepare<[string], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? ORDER BY stream_version',
      ),
      readLast: this.db.prepare<[string], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1',
      ),
      readAll: this.db
        .prepare<[number, number], RawEventRow>(
          `SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
        )
        .raw(),
      lastPosition: this.db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events'),
      count: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events'),
    };
    this.currentVersion = streamVersionReader(this.db);
    this.writer =
      options.commits === 'thread'
        ? new ThreadGroupWriter(file)
        : new InlineGroupWriter(this.db, options.checkpointThread ? new CheckpointRequests(file, this.db) : null);
  }

  /**
   * Group commit: appends issued in the same turn of the event loop share one transaction, so
   * one commit (one WAL write) serves many. The flush waits for setImmediate rather than a
   * microtask: HTTP requests that arrive together are handled in separate I/O callbacks of one
   * turn, and only a flush after all of them lets their appends share a commit. The writer
   * commits groups in the order sent, so each append's version check sees the groups before
   * it, and groups are answered (and told to subscribers) in that order.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const appends = this.pending;
    if (appends.length === 0) return;
    this.pending = [];
    const group = appends.map(({ streamId, events, expected }) => ({ streamId, events, expected }));
    const answered = this.writer.write(group).then(
      (outcomes) => this.settle(appends, outcomes),
      (error: unknown) => {
        // The commit itself failed: nothing of the group was written, so nothing is acknowledged.
        // A full disk is the caller's 507, not a crash: the next group tries again.
        this.failures.failed(error);
        const refusal = translateStorageError(error, 'event log');
        for (const append of appends) append.reject(refusal);
      },
    );
    this.inFlight.add(answered);
    void answered.finally(() => this.inFlight.delete(answered));
  }

  /**
   * Answers every append of a committed group and tells subscribers of the events written,
   * decoded from the very JSON written, so they see exactly what a later read of the log returns.
   */
  private settle(appends: PendingAppend[], outcomes: GroupOutcome[]): void {
    this.failures.succeeded();
    const committed: StoredEvent[] = [];
    appends.forEach((append, i) => {
      const outcome = outcomes[i];
      if ('conflict' in outcome) {
        append.reject(new VersionConflictError(append.streamId, append.expected, outcome.conflict));
        return;
      }
      const { streamId, events } = append;
      const firstVersion = outcome.streamVersion - events.length + 1;
      events.forEach((event, j) => {
        committed.push(
          rawToStored([outcome.firstPosition + j, streamId, firstVersion + j, event.type, event.data, event.metadata]),
        );
      });
      append.resolve({ streamVersion: outcome.streamVersion, position: outcome.firstPosition + events.length - 1 });
    });
    for (const listener of this.listeners) listener(committed);
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) {
      return { streamVersion: this.currentVersion(streamId), position: await this.lastPosition() };
    }
    // Encoded now, so an event JSON cannot hold is refused alone, before the group is written.
    const encoded = events.map((event) => ({
      type: event.type,
      data: encode(event.data),
      metadata: encode(event.metadata),
    }));
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ streamId, events: encoded, expected, resolve, reject });
      this.scheduleFlush();
    });
  }

  async readStream(streamId: string): Promise<StoredEvent[]> {
    return this.statements.readStream.all(streamId).map(toStored);
  }

  async readLastEvent(streamId: string): Promise<StoredEvent | null> {
    const row = this.statements.readLast.get(streamId);
    return row ? toStored(row) : null;
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    return this.statements.readAll.all(after, limit).map(rawToStored);
  }

  async lastPosition(): Promise<number> {
    return this.statements.lastPosition.get()?.p ?? 0;
  }

  async countEvents(): Promise<number> {
    return this.statements.count.get()?.n ?? 0;
  }

  async identity(): Promise<string> {
    try {
      this.identityRead ??= logIdentityOf(this.db);
    } catch (error) {
      // Written once per log: a full disk then is the same refusal an append gets.
      throw translateStorageError(error, 'event log');
    }
    return this.identityRead;
  }

  subscribeToAll(after: number, handler: AllEventsHandler): Subscription {
    return pollingSubscription(this, after, handler, (committed) => {
      this.listeners.add(committed);
      return () => this.listeners.delete(committed);
    });
  }

  storageFailure(): StorageFailure | null {
    return this.failures.get();
  }

  /** A consistent copy of the whole log, for backups: SQLite's online backup API. */
  async snapshotTo(file: string): Promise<void> {
    await this.db.backup(file);
  }

  async close(): Promise<void> {
    // Appends already issued are written (and answered) before the file closes.
    this.flush();
    await Promise.all(this.inFlight);
    await this.writer.close();
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }
}
