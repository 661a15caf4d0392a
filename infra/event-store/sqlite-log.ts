import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ExpectedVersion } from './port.js';

/** An event as it goes into its row: the JSON is made when the append is issued. */
export interface EncodedEvent {
  type: string;
  data: string;
  metadata: string;
}

/** One append of a group commit, as the writer receives it. */
export interface GroupAppend {
  streamId: string;
  events: EncodedEvent[];
  expected: ExpectedVersion;
}

/**
 * What became of one append of a committed group: written (its events took the consecutive
 * positions `firstPosition`.., ending at `streamVersion`), or refused by its version check
 * (`conflict` is the version the stream was at), writing nothing.
 */
export type GroupOutcome = { firstPosition: number; streamVersion: number } | { conflict: number };

/** Opens (creating if need be) the log file in WAL mode with its table. */
export function openEventLog(file: string): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // No AUTOINCREMENT: rows are never deleted, so the largest position plus one is always new,
  // and the sqlite_sequence row it would update is one more page written by every commit.
  // Logs made before keep the keyword; both read and write alike.
  db.exec(`
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
  return db;
}

/**
 * The log's identity (EventStore.identity), kept in a one-row table of the log's own file: made
 * by the first call on a log that has none (a new log, or one made before identities), after
 * which every connection of every process reads the same id. INSERT OR IGNORE makes two
 * processes that ask at once agree on the first one written.
 */
export function logIdentityOf(db: Database.Database): string {
  db.exec('CREATE TABLE IF NOT EXISTS log_identity (one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL)');
  db.prepare('INSERT OR IGNORE INTO log_identity (one, id) VALUES (1, ?)').run(randomUUID());
  const row = db.prepare<[], { id: unknown }>('SELECT id FROM log_identity WHERE one = 1').get();
  if (typeof row?.id !== 'string') throw new TypeError('The event log holds no identity after writing one.');
  return row.id;
}

/** The number of events a stream holds (0: none), read on `db`. */
export function streamVersionReader(db: Database.Database): (streamId: string) => number {
  const streamVersion = db.prepare<[string], { v: number | null }>(
    'SELECT MAX(stream_version) AS v FROM events WHERE stream_id = ?',
  );
  return (streamId) => streamVersion.get(streamId)?.v ?? 0;
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Builds the group commit of one connection: all appends in one IMMEDIATE transaction, which
 * takes the write lock before the version checks read, so another process's commit cannot
 * slip in between a check and its insert. Each append checks its expected version against
 * the log as the appends before it in the group left it; one that fails its check is refused
 * alone and writes nothing. Any other failure throws, and the whole group is undone.
 */
export function groupCommitter(db: Database.Database): (appends: GroupAppend[]) => GroupOutcome[] {
  const insert = db.prepare(
    'INSERT INTO events (stream_id, stream_version, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
  );
  const currentVersion = streamVersionReader(db);

  const writeGroup = (appends: GroupAppend[]): GroupOutcome[] => {
    const versions = new Map<string, number>();
    const outcomes: GroupOutcome[] = [];
    for (const { streamId, events, expected } of appends) {
      const known = versions.get(streamId);
      // A new stream (expected 0, the usual create) is checked by the unique (stream, version)
      // index as its first row goes in, which saves a lookup per create.
      const current = known ?? (expected === 0 ? 0 : currentVersion(streamId));
      if (expected !== 'any' && expected !== current) {
        outcomes.push({ conflict: current });
        continue;
      }
      let version = current;
      let firstPosition = 0;
      let refused = false;
      for (const event of events) {
        version += 1;
        let position: number;
        try {
          position = Number(insert.run(streamId, version, event.type, event.data, event.metadata).lastInsertRowid);
        } catch (error) {
          if (version !== 1 || known !== undefined || !isUniqueViolation(error)) throw error;
          // The stream exists after all. The failed insert undid only itself.
          outcomes.push({ conflict: currentVersion(streamId) });
          refused = true;
          break;
        }
        if (firstPosition === 0) firstPosition = position;
      }
      if (refused) continue;
      versions.set(streamId, version);
      outcomes.push({ firstPosition, streamVersion: version });
    }
    return outcomes;
  };
  // Built once: better-sqlite3 builds a new wrapper on every transaction() call, which costs more than a small append.
  const transaction = db.transaction(writeGroup);
  return (appends) => transaction.immediate(appends);
}
