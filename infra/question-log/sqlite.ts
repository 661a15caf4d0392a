import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppConfig } from '../config.js';
import {
  normalizeQuestion,
  TEXTS_PER_READ,
  type CitationCount,
  type CitedResource,
  type QuestionEntry,
  type QuestionFilter,
  type QuestionLog,
  type QuestionPage,
  type RecordedQuestion,
  type RepeatedQuestion,
} from './port.js';

/** The file in DATA_DIR: a backup with the database snapshots it (infra/read-side-files.ts). */
export function questionLogFile(config: AppConfig): string {
  return join(config.dataDir, 'chatbot-questions.sqlite');
}

interface QuestionRow {
  id: number;
  question: string;
  asked_at: string;
  site_id: number | null;
  answered: number;
}

interface SourceRow extends CitedResource {
  question_id: number;
}

type Params = (string | number)[];

function where(filter: QuestionFilter, params: Params): string {
  const clauses: string[] = [];
  if (filter.answered !== undefined) {
    clauses.push('q.answered = ?');
    params.push(filter.answered ? 1 : 0);
  }
  if (filter.siteId !== undefined) {
    clauses.push('q.site_id = ?');
    params.push(filter.siteId);
  }
  if (filter.since) {
    clauses.push('q.asked_at >= ?');
    params.push(filter.since.toISOString());
  }
  if (filter.until) {
    clauses.push('q.asked_at < ?');
    params.push(filter.until.toISOString());
  }
  return clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
}

/**
 * The embedded question log: one SQLite file, beside the embedding cache. `secure_delete`
 * overwrites a deleted row's bytes, and a truncating checkpoint after each deletion empties the
 * write-ahead log, so a question past its retention is in no page of either file: a backup's
 * snapshot (VACUUM INTO) made afterwards cannot carry it. Its work is synchronous; the port's
 * promises settle once it is done.
 */
export class SqliteQuestionLog implements QuestionLog {
  private readonly db: Database.Database;
  private readonly insertQuestion: Database.Statement<[string, string, string, number | null, number]>;
  private readonly insertSource: Database.Statement<[number, number, string, number, string, string]>;

  constructor(file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS questions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        question TEXT NOT NULL,
        normalized TEXT NOT NULL,
        asked_at TEXT NOT NULL,
        site_id INTEGER,
        answered INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS questions_asked_at ON questions (asked_at, id);
      CREATE TABLE IF NOT EXISTS question_sources (
        question_id INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        resource_type TEXT NOT NULL,
        resource_id INTEGER NOT NULL,
        title TEXT NOT NULL,
        url TEXT NOT NULL,
        PRIMARY KEY (question_id, position)
      );
      CREATE INDEX IF NOT EXISTS question_sources_resource ON question_sources (resource_type, resource_id);
    `);
    this.insertQuestion = this.db.prepare(
      'INSERT INTO questions (question, normalized, asked_at, site_id, answered) VALUES (?, ?, ?, ?, ?)',
    );
    this.insertSource = this.db.prepare(
      'INSERT INTO question_sources (question_id, position, resource_type, resource_id, title, url) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  async record(entry: QuestionEntry): Promise<void> {
    this.db.transaction(() => {
      const { lastInsertRowid } = this.insertQuestion.run(
        entry.question,
        normalizeQuestion(entry.question),
        entry.askedAt.toISOString(),
        entry.siteId,
        entry.answered ? 1 : 0,
      );
      const id = Number(lastInsertRowid);
      entry.sources.forEach((s, position) =>
        this.insertSource.run(id, position, s.resource_type, s.resource_id, s.title, s.url),
      );
    })();
  }

  async list(filter: QuestionFilter, skip: number, limit: number): Promise<QuestionPage> {
    const total = this.countNow(filter);
    // A page past the end asks nothing more: its offset may be past what SQLite takes as an integer.
    if (skip >= total) return { questions: [], total };
    const params: Params = [];
    const clause = where(filter, params);
    const rows = this.db
      .prepare<Params, QuestionRow>(
        `SELECT q.id, q.question, q.asked_at, q.site_id, q.answered FROM questions q ${clause} ORDER BY q.asked_at DESC, q.id DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, limit, skip);
    const sources = this.sourcesOf(rows.map((r) => r.id));
    const questions: RecordedQuestion[] = rows.map((r) => ({
      id: r.id,
      question: r.question,
      askedAt: new Date(r.asked_at),
      siteId: r.site_id,
      answered: r.answered === 1,
      sources: sources.get(r.id) ?? [],
    }));
    return { questions, total };
  }

  private sourcesOf(ids: number[]): Map<number, CitedResource[]> {
    const byQuestion = new Map<number, CitedResource[]>();
    if (ids.length === 0) return byQuestion;
    const rows = this.db
      .prepare<number[], SourceRow>(
        `SELECT question_id, resource_type, resource_id, title, url FROM question_sources WHERE question_id IN (${ids.map(() => '?').join(',')}) ORDER BY question_id, position`,
      )
      .all(...ids);
    for (const { question_id, resource_type, resource_id, title, url } of rows) {
      const list = byQuestion.get(question_id) ?? [];
      list.push({ resource_type, resource_id, title, url });
      byQuestion.set(question_id, list);
    }
    return byQuestion;
  }

  /** TEXTS_PER_READ at a time, by id: no statement is held open while the caller works. */
  async *texts(filter: QuestionFilter): AsyncGenerator<string> {
    let after = 0;
    for (;;) {
      const params: Params = [];
      const clause = where(filter, params);
      const rows = this.db
        .prepare<Params, { id: number; question: string }>(
          `SELECT q.id, q.question FROM questions q ${clause ? `${clause} AND` : 'WHERE'} q.id > ? ORDER BY q.id LIMIT ?`,
        )
        .all(...params, after, TEXTS_PER_READ);
      for (const row of rows) yield row.question;
      if (rows.length < TEXTS_PER_READ) return;
      after = rows[rows.length - 1].id;
    }
  }

  async count(filter: QuestionFilter): Promise<number> {
    return this.countNow(filter);
  }

  private countNow(filter: QuestionFilter): number {
    const params: Params = [];
    const row = this.db
      .prepare<Params, { n: number }>(`SELECT COUNT(*) AS n FROM questions q ${where(filter, params)}`)
      .get(...params);
    return row?.n ?? 0;
  }

  async mostCited(filter: QuestionFilter, limit: number): Promise<CitationCount[]> {
    const params: Params = [];
    const clause = where(filter, params);
    return this.db
      .prepare<Params, CitationCount>(
        `SELECT s.resource_type, s.resource_id, MAX(s.title) AS title, COUNT(DISTINCT s.question_id) AS citations
         FROM question_sources s JOIN questions q ON q.id = s.question_id ${clause}
         GROUP BY s.resource_type, s.resource_id
         ORDER BY citations DESC, s.resource_type, s.resource_id LIMIT ?`,
      )
      .all(...params, limit);
  }

  async mostAskedUnanswered(filter: QuestionFilter, limit: number): Promise<RepeatedQuestion[]> {
    const params: Params = [];
    const clause = where({ ...filter, answered: false }, params);
    // The text shown is the one asked last of its group (SQLite takes the bare column from the MAX row).
    const rows = this.db
      .prepare<Params, { question: string; count: number; last: string }>(
        `SELECT q.question, COUNT(*) AS count, MAX(q.asked_at) AS last FROM questions q ${clause}
         GROUP BY q.normalized ORDER BY count DESC, last DESC LIMIT ?`,
      )
      .all(...params, limit);
    return rows.map((r) => ({ question: r.question, count: r.count, last_asked_at: new Date(r.last) }));
  }

  async deleteAskedBefore(cutoff: Date): Promise<number> {
    const { changes } = this.db.prepare('DELETE FROM questions WHERE asked_at < ?').run(cutoff.toISOString());
    // The old pages still sit in the write-ahead log until a checkpoint copies them and it starts over.
    if (changes > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
