import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { SqliteEventStore } from '../infra/event-store/sqlite.js';

/**
 * The write baseline: raw better-sqlite3 single-row inserts, each its own transaction, into
 * the event table in the event store's own WAL mode and synchronous level, for `seconds`.
 * Returns inserts per second.
 */
export function rawInsertsPerSecond(file: string, seconds: number, payload: string): number {
  rmSync(file, { force: true });
  void new SqliteEventStore(file).close();
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const insert = db.prepare(
      'INSERT INTO events (stream_id, stream_version, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
    );
    const metadata = JSON.stringify({ userId: 1, at: new Date().toISOString() });
    const end = performance.now() + seconds * 1000;
    let n = 0;
    let now = performance.now();
    const began = now;
    while (now < end) {
      for (let i = 0; i < 100; i++) {
        n += 1;
        insert.run(`blog_post-${n}`, 1, 'BlogPostCreated', payload, metadata);
      }
      now = performance.now();
    }
    return n / ((now - began) / 1000);
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
}
