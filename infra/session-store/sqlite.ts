import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../clock/port.js';
import { newSessionToken, sessionKey, SESSION_TTL_MS, type SessionStore } from './port.js';

/**
 * The embedded session store: a small SQLite file of its own beside the event log (never in a
 * backup: sessions are not collection data). Every process that opens the file shares its sessions.
 */
export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(
    file: string,
    private readonly clock: Clock,
  ) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A login lost to a power cut is a login to repeat; an fsync per login buys nothing more.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        key TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);
    `);
    this.statements = {
      insert: this.db.prepare<[string, number, number]>(
        'INSERT INTO sessions (key, user_id, expires_at) VALUES (?, ?, ?)',
      ),
      find: this.db.prepare<[string], { user_id: number; expires_at: number }>(
        'SELECT user_id, expires_at FROM sessions WHERE key = ?',
      ),
      remove: this.db.prepare<[string]>('DELETE FROM sessions WHERE key = ?'),
      removeExpired: this.db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?'),
    };
  }

  async create(userId: number): Promise<string> {
    const now = this.clock.now().getTime();
    const token = newSessionToken();
    // Sessions nobody presents again would stay forever: each login clears the expired ones.
    this.db.transaction(() => {
      this.statements.removeExpired.run(now);
      this.statements.insert.run(sessionKey(token), userId, now + SESSION_TTL_MS);
    })();
    return token;
  }

  async userIdFor(token: string): Promise<number | null> {
    const key = sessionKey(token);
    const row = this.statements.find.get(key);
    if (!row) return null;
    if (row.expires_at <= this.clock.now().getTime()) {
      this.statements.remove.run(key);
      return null;
    }
    return row.user_id;
  }

  async destroy(token: string): Promise<void> {
    this.statements.remove.run(sessionKey(token));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
