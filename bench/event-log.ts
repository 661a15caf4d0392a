import Database from 'better-sqlite3';
import { join } from 'node:path';
import { SqliteEventStore } from '../infra/event-store/sqlite.js';
import type { EventMetadata } from '../infra/event-store/port.js';

/**
 * Writes generated events straight into the embedded event store's SQLite file: the fast way
 * to a large log. The table is created by the real adapter, so the layout is the one the
 * server reads; stream versions continue from what the file already holds.
 */
export class EventLogWriter {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, number, string, string, string]>;
  private readonly versions = new Map<string, number>();
  private pending: [string, number, string, string, string][] = [];
  private written = 0;

  constructor(dataDir: string) {
    const file = join(dataDir, 'events.sqlite');
    void new SqliteEventStore(file).close();
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = OFF');
    this.insert = this.db.prepare(
      'INSERT INTO events (stream_id, stream_version, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
    );
    const rows = this.db
      .prepare('SELECT stream_id AS s, MAX(stream_version) AS v FROM events GROUP BY stream_id')
      .all() as { s: string; v: number }[];
    for (const row of rows) this.versions.set(row.s, row.v);
  }

  append(streamId: string, type: string, data: unknown, metadata: EventMetadata): void {
    const version = (this.versions.get(streamId) ?? 0) + 1;
    this.versions.set(streamId, version);
    this.pending.push([streamId, version, type, JSON.stringify(data), JSON.stringify(metadata)]);
    if (this.pending.length >= 20_000) this.flush();
  }

  /** The number of events written so far (flushed or not). */
  get count(): number {
    return this.written + this.pending.length;
  }

  private flush(): void {
    const rows = this.pending;
    this.pending = [];
    this.db.transaction(() => {
      for (const row of rows) this.insert.run(...row);
    })();
    this.written += rows.length;
  }

  close(): void {
    this.flush();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }
}
