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

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
  result?: AppendResult;
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

/**
 * The embedded event store: one SQLite file in WAL mode. Appends run in one transaction, so a
 * crash leaves either the whole append or none of it.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly listeners = new Set<() => void>();
  private readonly statements;
  /** Built once: better-sqlite3 builds a new wrapper on every transaction() call, which costs more than a small append. */
  private readonly appendTransaction: (streamId: string, events: NewEvent[], expected: ExpectedVersion) => AppendResult;
  private readonly groupTransaction: (appends: PendingAppend[]) => void;
  /** Appends waiting for the next group commit (the end of the current microtask run). */
  private pending: PendingAppend[] = [];

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
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
    this.appendTransaction = this.db.transaction((streamId: string, events: NewEvent[], expected: ExpectedVersion) =>
      this.appendInOne(streamId, events, expected),
    );
    // Inside it each append is its own nested transaction (a savepoint): one that fails, e.g. on
    // a version conflict, is undone alone and the others still commit together.
    this.groupTransaction = this.db.transaction((appends: PendingAppend[]) => {
      for (const append of appends) {
        try {
          append.result = this.appendTransaction(append.streamId, append.events, append.expected);
        } catch (error) {
          append.error = error;
        }
      }
    });
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
      this.groupTransaction(appends);
    } catch (error) {
      // The commit itself failed: nothing of the group was written.
      for (const append of appends) append.reject(error);
      return;
    }
    for (const append of appends) {
      if (append.result) append.resolve(append.result);
      else append.reject(append.error);
    }
    for (const listener of this.listeners) listener();
  }

  /** Checks the expected version and inserts, atomically; its result says where the events landed. */
  private appendInOne(streamId: string, events: NewEvent[], expected: ExpectedVersion): AppendResult {
    const current = this.statements.streamVersion.get(streamId)?.v ?? 0;
    if (expected !== 'any' && expected !== current) {
      throw new VersionConflictError(streamId, expected, current);
    }
    let version = current;
    let position = 0;
    for (const event of events) {
      version += 1;
      const info = this.statements.insert.run(
        streamId,
        version,
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
      );
      position = Number(info.lastInsertRowid);
    }
    return { streamVersion: version, position };
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) {
      const current = this.statements.streamVersion.get(streamId)?.v ?? 0;
      return { streamVersion: current, position: await this.lastPosition() };
    }
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flushPending());
      this.pending.push({ streamId, events, expected, resolve, reject });
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
    return pollingSubscription(this, after, handler, (wake) => {
      this.listeners.add(wake);
      return () => this.listeners.delete(wake);
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
