import pg from 'pg';
import type { PoolClient, QueryResult } from 'pg';
import { quoteIdentifier } from '../postgres-errors.js';
import { columnReaders, createTablesOnce, inTransaction, isRecord, translatorFor } from '../postgres-adapter.js';
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

/** What a PostgreSQL outage is reported as (503, and QUESTION_LOG_URL named at start: infra/select.ts). */
export const QUESTION_LOG_DEPENDENCY = 'question log';
/** The class of this adapter's advisory lock (the other key is the schema's hash). */
const LOCK_CLASS = 0x71756573; // 'ques'

export interface PostgresQuestionLogOptions {
  /** The schema holding the tables (created on first use); 'public' by default. Tests use one each. */
  schema?: string;
  /** Pool size; 5 by default (a request reads at most five things at once: a summary). */
  maxConnections?: number;
}

// ---- rows read back are checked, not cast ----

function rowsOf(result: QueryResult): Record<string, unknown>[] {
  return result.rows.map((row: unknown) => {
    if (!isRecord(row)) throw new TypeError('PostgreSQL question log: a row is not an object.');
    return row;
  });
}

const { integer, text } = columnReaders('question log');

function moment(value: unknown, column: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw new TypeError(`PostgreSQL question log: ${column} is not a timestamp.`);
  return value;
}

function bool(value: unknown, column: string): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`PostgreSQL question log: ${column} is not a boolean.`);
  return value;
}

// ---- driver errors translated at the boundary ----

const translate = translatorFor(QUESTION_LOG_DEPENDENCY);

/** The filter as SQL over `q` (the questions), its values appended to `params` ($n numbered after them). */
function where(filter: QuestionFilter, params: unknown[]): string {
  const clauses: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.answered !== undefined) add('q.answered = ?', filter.answered);
  if (filter.siteId !== undefined) add('q.site_id = ?', filter.siteId);
  if (filter.since) add('q.asked_at >= ?', filter.since.toISOString());
  if (filter.until) add('q.asked_at < ?', filter.until.toISOString());
  return clauses.length > 0 ? clauses.join(' AND ') : 'TRUE';
}

/**
 * The question log in PostgreSQL (QUESTION_LOG_URL), so every app server lists and summarises
 * the questions all of them answered: `chatbot_questions` (the text, its normalised form, when,
 * the site, answered or not) and `chatbot_question_sources` (what each answer cited, in order,
 * deleted with its question). A question is one statement: its row and its sources' rows commit
 * together. Texts and ordering compare by code point (COLLATE "C"), as SQLite's do.
 */
export class PostgresQuestionLog implements QuestionLog {
  readonly pool: pg.Pool;
  readonly questions: string;
  readonly sources: string;
  private readonly schema: string;
  private ready: Promise<void> | null = null;
  private closed = false;

  constructor(connectionString: string, options: PostgresQuestionLogOptions = {}) {
    this.schema = options.schema ?? 'public';
    this.questions = `${quoteIdentifier(this.schema)}.chatbot_questions`;
    this.sources = `${quoteIdentifier(this.schema)}.chatbot_question_sources`;
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 5, connectionTimeoutMillis: 5000 });
    // An idle connection the server dropped: the pool discards it; the next query connects again.
    this.pool.on('error', () => undefined);
  }

  /**
   * Creates the schema and tables unless they are there (once across processes, under a lock).
   * Tables already made are left untouched, so a user that may not create anything starts too.
   */
  schemaReady(): Promise<void> {
    this.ready ??= this.transaction(async (client) => {
      const tables: [string, string] = [this.questions, this.sources];
      await createTablesOnce(client, { lockClass: LOCK_CLASS, schema: this.schema, tables }, async () => {
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.questions} (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          question text NOT NULL,
          normalized text NOT NULL,
          asked_at timestamptz NOT NULL,
          site_id bigint,
          answered boolean NOT NULL
        )`);
        await client.query(`CREATE INDEX IF NOT EXISTS chatbot_questions_asked_at ON ${this.questions} (asked_at, id)`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.sources} (
          question_id bigint NOT NULL REFERENCES ${this.questions} (id) ON DELETE CASCADE,
          position integer NOT NULL,
          resource_type text NOT NULL,
          resource_id bigint NOT NULL,
          title text NOT NULL,
          url text NOT NULL,
          PRIMARY KEY (question_id, position)
        )`);
        await client.query(
          `CREATE INDEX IF NOT EXISTS chatbot_question_sources_resource ON ${this.sources} (resource_type, resource_id)`,
        );
      });
    }).catch((error: unknown) => {
      this.ready = null; // tried again by the next call
      throw error;
    });
    return this.ready;
  }

  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, translate, work);
  }

  /** One statement, once the tables exist; driver errors translated. */
  async query(sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
    let result: QueryResult;
    try {
      await this.schemaReady();
      result = await this.pool.query(sql, values);
    } catch (error) {
      throw translate(error);
    }
    return rowsOf(result);
  }

  async record(entry: QuestionEntry): Promise<void> {
    // Data-modifying CTEs all run: the question is inserted even when it cited nothing.
    await this.query(
      `WITH q AS (
         INSERT INTO ${this.questions} (question, normalized, asked_at, site_id, answered)
         VALUES ($1, $2, $3, $4, $5) RETURNING id
       )
       INSERT INTO ${this.sources} (question_id, position, resource_type, resource_id, title, url)
       SELECT q.id, s.position, s.resource_type, s.resource_id, s.title, s.url
       FROM q, unnest($6::int[], $7::text[], $8::bigint[], $9::text[], $10::text[])
         AS s (position, resource_type, resource_id, title, url)`,
      [
        entry.question,
        normalizeQuestion(entry.question),
        entry.askedAt.toISOString(),
        entry.siteId,
        entry.answered,
        entry.sources.map((_, position) => position),
        entry.sources.map((s) => s.resource_type),
        entry.sources.map((s) => s.resource_id),
        entry.sources.map((s) => s.title),
        entry.sources.map((s) => s.url),
      ],
    );
  }

  async list(filter: QuestionFilter, skip: number, limit: number): Promise<QuestionPage> {
    const total = await this.count(filter);
    // A page past the end asks nothing more: its offset may be past what PostgreSQL takes as a bigint.
    if (skip >= total) return { questions: [], total };
    const params: unknown[] = [];
    const clause = where(filter, params);
    const rows = await this.query(
      `SELECT q.id, q.question, q.asked_at, q.site_id, q.answered FROM ${this.questions} q WHERE ${clause}
       ORDER BY q.asked_at DESC, q.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, skip],
    );
    const ids = rows.map((r) => integer(r.id, 'id'));
    const sources = await this.sourcesOf(ids);
    const questions: RecordedQuestion[] = rows.map((r, i) => ({
      id: ids[i],
      question: text(r.question, 'question'),
      askedAt: moment(r.asked_at, 'asked_at'),
      siteId: r.site_id === null ? null : integer(r.site_id, 'site_id'),
      answered: bool(r.answered, 'answered'),
      sources: sources.get(ids[i]) ?? [],
    }));
    return { questions, total };
  }

  private async sourcesOf(ids: number[]): Promise<Map<number, CitedResource[]>> {
    const byQuestion = new Map<number, CitedResource[]>();
    if (ids.length === 0) return byQuestion;
    const rows = await this.query(
      `SELECT question_id, resource_type, resource_id, title, url FROM ${this.sources}
       WHERE question_id = ANY($1::bigint[]) ORDER BY question_id, position`,
      [ids],
    );
    for (const row of rows) {
      const id = integer(row.question_id, 'question_id');
      const list = byQuestion.get(id) ?? [];
      list.push({
        resource_type: text(row.resource_type, 'resource_type'),
        resource_id: integer(row.resource_id, 'resource_id'),
        title: text(row.title, 'title'),
        url: text(row.url, 'url'),
      });
      byQuestion.set(id, list);
    }
    return byQuestion;
  }

  /** TEXTS_PER_READ at a time, by id: a pooled connection is held for one query, never while the caller works. */
  async *texts(filter: QuestionFilter): AsyncGenerator<string> {
    let after = 0;
    for (;;) {
      const params: unknown[] = [];
      const clause = where(filter, params);
      const rows = await this.query(
        `SELECT q.id, q.question FROM ${this.questions} q WHERE ${clause} AND q.id > $${params.length + 1}
         ORDER BY q.id LIMIT $${params.length + 2}`,
        [...params, after, TEXTS_PER_READ],
      );
      for (const row of rows) yield text(row.question, 'question');
      if (rows.length < TEXTS_PER_READ) return;
      after = integer(rows[rows.length - 1].id, 'id');
    }
  }

  async count(filter: QuestionFilter): Promise<number> {
    const params: unknown[] = [];
    const rows = await this.query(
      `SELECT COUNT(*) AS n FROM ${this.questions} q WHERE ${where(filter, params)}`,
      params,
    );
    return integer(rows[0]?.n, 'count');
  }

  async mostCited(filter: QuestionFilter, limit: number): Promise<CitationCount[]> {
    const params: unknown[] = [];
    const clause = where(filter, params);
    const rows = await this.query(
      `SELECT s.resource_type, s.resource_id, MAX(s.title COLLATE "C") AS title,
              COUNT(DISTINCT s.question_id) AS citations
       FROM ${this.sources} s JOIN ${this.questions} q ON q.id = s.question_id WHERE ${clause}
       GROUP BY s.resource_type, s.resource_id
       ORDER BY citations DESC, s.resource_type COLLATE "C", s.resource_id LIMIT $${params.length + 1}`,
      [...params, limit],
    );
    return rows.map((r) => ({
      resource_type: text(r.resource_type, 'resource_type'),
      resource_id: integer(r.resource_id, 'resource_id'),
      title: text(r.title, 'title'),
      citations: integer(r.citations, 'citations'),
    }));
  }

  async mostAskedUnanswered(filter: QuestionFilter, limit: number): Promise<RepeatedQuestion[]> {
    const params: unknown[] = [];
    const clause = where({ ...filter, answered: false }, params);
    // The groups first, then the text asked last of each of those only (by id among equal times).
    const rows = await this.query(
      `WITH g AS (
         SELECT q.normalized, COUNT(*) AS count, MAX(q.asked_at) AS last FROM ${this.questions} q WHERE ${clause}
         GROUP BY q.normalized ORDER BY count DESC, last DESC LIMIT $${params.length + 1}
       )
       SELECT (SELECT q.question FROM ${this.questions} q
               WHERE ${clause} AND q.normalized = g.normalized AND q.asked_at = g.last
               ORDER BY q.id DESC LIMIT 1) AS question, g.count, g.last
       FROM g ORDER BY g.count DESC, g.last DESC`,
      [...params, limit],
    );
    return rows.map((r) => ({
      question: text(r.question, 'question'),
      count: integer(r.count, 'count'),
      last_asked_at: moment(r.last, 'last'),
    }));
  }

  /**
   * The rows go at once (their sources with them): no read finds them again. Their bytes stay in
   * the table's dead tuples until (auto)vacuum reuses the space, and in the write-ahead log and
   * base backups PostgreSQL keeps (docs/PRODUCTION.md, "The question log on PostgreSQL").
   */
  async deleteAskedBefore(cutoff: Date): Promise<number> {
    const rows = await this.query(
      `WITH gone AS (DELETE FROM ${this.questions} WHERE asked_at < $1 RETURNING 1) SELECT COUNT(*) AS n FROM gone`,
      [cutoff.toISOString()],
    );
    return integer(rows[0]?.n, 'deleted');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
