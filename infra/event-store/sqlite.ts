import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { VersionConflictError } from '../errors.js';
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

interface EventRow {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  data: string;
  metadata: string;
}

/** An event as it goes into its row: the JSON is made when the append is issued. */
interface EncodedEvent {
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
  result?: AppendResult;
  /** The events as a reader of the log will see them, once the append succeeded. */
  stored?: StoredEvent[];
  error?: unknown;
}

/** A row of `SELECT ${COLUMNS}` read with `.raw()`: arrays skip building a row object per event. */
type RawEventRow = [number, string, number, string, string, string];
const COLUMNS = 'position, stream_id, stream_version, type, data, metadata';

function rawToStored(row: RawEventRow): StoredEvent {
  return { position: row[0], streamId: row[1], streamVersion: row[2], type: row[3], data: JSON.parse(row[4]), metadata: JSON.parse(row[5]) };
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

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

function encode(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) throw new TypeError('An event needs data and metadata that JSON can hold.');
  return json;
}

/**
 * The embedded event store: one SQLite file in WAL mode. Appends run in one transaction, so a
 * crash leaves either the whole append or none of it.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  /** In-process subscribers, told of every group commit with the events it wrote. */
  private readonly listeners = new Set<(committed: StoredEvent[]) => void>();
  private readonly statements;
  /** Built once: better-sqlite3 builds a new wrapper on every transaction() call, which costs more than a small append. */
  private readonly groupTransaction: Database.Transaction<(appends: PendingAppend[]) => void>;
  /** Appends waiting for the next group commit (the next setImmediate). */
  private pending: PendingAppend[] = [];

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // No AUTOINCREMENT: rows are never deleted, so the largest position plus one is always new,
    // and the sqlite_sequence row it would update is one more page written by every commit.
    // Logs made before keep the keyword; both read and write alike.
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY,
        stream_id TEXT NOT NULL,
        stream_version INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE (stream_id, stream_version)
      );
    `);
    this.statements = {
      streamVersion: this.db.prepare<[string], { v: number | null }>(
        'SELECT MAX(stream_version) AS v FROM events WHERE stream_id = ?',
      ),
      insert: this.db.prepare(
        'INSERT INTO events (stream_id, stream_version, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
      ),
      readStream: this.db.prepare<[string], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? ORDER BY stream_version',
      ),
      readLast: this.db.prepare<[string], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1',
      ),
      readAll: this.db.prepare<[number, number], RawEventRow>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`).raw(),
      lastPosition: this.db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events'),
      count: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events'),
    };
    this.groupTransaction = this.db.transaction((appends: PendingAppend[]) => this.writeGroup(appends));
  }

  /**
   * Group commit: appends issued in the same turn of the event loop share one transaction, so
   * one commit (one WAL write) serves many. The flush waits for setImmediate rather than a
   * microtask: HTTP requests that arrive together are handled in separate I/O callbacks of one
   * turn, and only a flush after all of them lets their appends share a commit. Each append
   * keeps its own expected-version check, made in order against the log as the earlier appends
   * of the group left it.
   */
  private flushPending(): void {
    const appends = this.pending;
    if (appends.length === 0) return;
    this.pending = [];
    try {
      // IMMEDIATE takes the write lock before the version checks read, so another process's
      // commit cannot slip in between a check and its insert.
      this.groupTransaction.immediate(appends);
    } catch (error) {
      // The commit itself failed: nothing of the group was written.
      for (const append of appends) append.reject(error);
      return;
    }
    const committed: StoredEvent[] = [];
    for (const append of appends) {
      if (append.result) {
        if (append.stored) for (const event of append.stored) committed.push(event);
        append.resolve(append.result);
      } else append.reject(append.error);
    }
    for (const listener of this.listeners) listener(committed);
  }

  /**
   * Writes a group inside its transaction. Each append checks its expected version against the
   * log as the appends before it in the group left it (`versions`); one that fails its check is
   * refused alone and writes nothing. Any other failure throws, and the whole group is undone.
   * The stored events are decoded from the very JSON written, so subscribers handed them see
   * exactly what a later read of the log returns.
   */
  private writeGroup(appends: PendingAppend[]): void {
    const versions = new Map<string, number>();
    for (const append of appends) {
      const { streamId, expected } = append;
      const known = versions.get(streamId);
      // A new stream (expected 0, the usual create) is checked by the unique (stream, version)
      // index as its first row goes in, which saves a lookup per create.
      const current = known ?? (expected === 0 ? 0 : this.currentVersion(streamId));
      if (expected !== 'any' && expected !== current) {
        append.error = new VersionConflictError(streamId, expected, current);
        continue;
      }
      let version = current;
      let position = 0;
      const stored: StoredEvent[] = [];
      for (const event of append.events) {
        version += 1;
        try {
          position = Number(this.statements.insert.run(streamId, version, event.type, event.data, event.metadata).lastInsertRowid);
        } catch (error) {
          if (version !== 1 || known !== undefined || !isUniqueViolation(error)) throw error;
          // The stream exists after all. The failed insert undid only itself.
          append.error = new VersionConflictError(streamId, expected, this.currentVersion(streamId));
          break;
        }
        stored.push(rawToStored([position, streamId, version, event.type, event.data, event.metadata]));
      }
      if (append.error) continue;
      versions.set(streamId, version);
      append.result = { streamVersion: version, position };
      append.stored = stored;
    }
  }

  private currentVersion(streamId: string): number {
    return this.statements.streamVersion.get(streamId)?.v ?? 0;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) {
      return { streamVersion: this.currentVersion(streamId), position: await this.lastPosition() };
    }
    // Encoded now, so an event JSON cannot hold is refused alone, before the group is written.
    const encoded = events.map((event) => ({ type: event.type, data: encode(event.data), metadata: encode(event.metadata) }));
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flushPending());
      this.pending.push({ streamId, events: encoded, expected, resolve, reject });
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

  subscribeToAll(after: number, handler: AllEventsHandler): Subscription {
    return pollingSubscription(this, after, handler, (committed) => {
      this.listeners.add(committed);
      return () => this.listeners.delete(committed);
    });
  }

  /** A consistent copy of the whole log, for backups: SQLite's online backup API. */
  async snapshotTo(file: string): Promise<void> {
    await this.db.backup(file);
  }

  async close(): Promise<void> {
    // Appends already issued are written (and answered) before the file closes.
    if (this.pending.length > 0 && this.db.open) this.flushPending();
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }
}
