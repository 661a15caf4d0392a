import type Database from 'better-sqlite3';
import type { Document } from './port.js';
import { searchableText } from './text-search.js';
import { TrigramSample } from './trigram-sample.js';

/** What the text index asks of its collection's store: statements and the open write transaction. */
export interface TextIndexHost {
  readonly db: Database.Database;
  statement(sql: string): Database.Statement;
  write<T>(work: () => T): T;
}

/** Needles shorter than this (in code points) have no trigram: they are found by a scan instead. */
const TRIGRAM = 3;
/** Documents read at a time when an index is filled from a collection that already holds some. */
const FILL_BATCH = 1000;
/** Needles whose matches are remembered until the collection changes. */
const FOUND_CACHE_LIMIT = 64;
/**
 * Code points of a needle given to FTS5 as one phrase (a token each). A phrase of 100,000
 * tokens made SQLite allocate gigabytes; a longer needle is found by its first ones and checked
 * whole by instr.
 */
const PHRASE_LIMIT = 64;

/** The needle as one FTS5 phrase: quoted, its `"` doubled, so FTS5 syntax in it is plain text. */
function phrase(needle: string): string {
  return `"${needle.replaceAll('"', '""')}"`;
}

/**
 * A collection's text search in SQLite: an FTS5 table beside the documents' table, one column
 * per text field, keyed by the document row's rowid. It holds each field lowercased by
 * JavaScript (so case folding is exactly the reference's `toLowerCase`) and the trigram
 * tokenizer is case-sensitive on top of that: a quoted phrase of the lowercased needle then
 * matches exactly the rows holding it as a substring. The collection writes it in the same
 * transaction as the document (rather than by a trigger, which would need this process's
 * lowercase function in any other connection that writes the file).
 */
export class SqliteTextIndex {
  readonly table: string;

  constructor(
    private readonly host: TextIndexHost,
    private readonly documentsTable: string,
    private readonly tableName: string,
    readonly fields: readonly string[],
  ) {
    this.table = `"${tableName}"`;
    this.sample = new TrigramSample({
      rowidRange: () => {
        const range = this.host.statement(`SELECT (SELECT min(rowid) FROM ${this.documentsTable}) AS min, (SELECT max(rowid) FROM ${this.documentsTable}) AS max`).get() as { min: number | null; max: number | null };
        return range.min === null || range.max === null ? null : { min: range.min, max: range.max };
      },
      textsOf: (rowids) => {
        const columns = this.fields.map((field) => `"${field}"`).join(', ');
        return this.host.statement(`SELECT ${columns} FROM ${this.table} WHERE rowid IN (SELECT value FROM json_each(?))`).raw().all(JSON.stringify(rowids)) as string[][];
      },
    });
  }

  /** Which trigrams of a needle are rare, guessed from a sample of the rows. */
  private readonly sample: TrigramSample;

  /** Creates the table if missing (or made for other fields), filling it from the stored documents. */
  ensure(): void {
    const columns = this.host.db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(this.tableName) as string[];
    if (columns.length > 0 && columns.join(',') === this.fields.join(',')) return;
    this.host.write(() => {
      if (columns.length > 0) this.host.db.exec(`DROP TABLE ${this.table}`);
      const names = this.fields.map((field) => `"${field}"`).join(', ');
      this.host.db.exec(`CREATE VIRTUAL TABLE ${this.table} USING fts5(${names}, tokenize = 'trigram case_sensitive 1')`);
      // In batches: one connection cannot write while a read of it is still being stepped.
      const batch = this.host.db.prepare(`SELECT rowid, doc FROM ${this.documentsTable} WHERE rowid > ? ORDER BY rowid LIMIT ${FILL_BATCH}`);
      const insert = this.insertStatement();
      let last = -Infinity;
      for (;;) {
        const rows = batch.all(last) as { rowid: number; doc: string }[];
        for (const row of rows) insert.run(row.rowid, ...this.texts(JSON.parse(row.doc) as Document));
        if (rows.length < FILL_BATCH) break;
        last = rows[rows.length - 1].rowid;
      }
    });
  }

  private insertStatement(): Database.Statement {
    const names = this.fields.map((field) => `"${field}"`).join(', ');
    return this.host.statement(`INSERT INTO ${this.table} (rowid, ${names}) VALUES (?, ${this.fields.map(() => '?').join(', ')})`);
  }

  private texts(doc: Document): string[] {
    return this.fields.map((field) => searchableText(doc[field]));
  }

  /** Replaces the row's texts (inside the caller's write transaction). */
  written(rowid: number | bigint, doc: Document): void {
    this.host.statement(`DELETE FROM ${this.table} WHERE rowid = ?`).run(rowid);
    this.insertStatement().run(rowid, ...this.texts(doc));
  }

  /** Forgets the rows (inside the caller's write transaction). */
  deleted(rowids: readonly (number | bigint)[]): void {
    const statement = this.host.statement(`DELETE FROM ${this.table} WHERE rowid = ?`);
    for (const rowid of rowids) statement.run(rowid);
  }

  drop(): void {
    this.host.write(() => this.host.db.exec(`DROP TABLE IF EXISTS ${this.table}`));
  }

  /** Rowids holding each needle searched since the collection last changed (a list's page and its counts search alike). */
  private readonly found = new Map<string, number[]>();

  /** Forgets the remembered matches: the collection changed. */
  changed(): void {
    if (this.found.size > 0) this.found.clear();
  }

  /**
   * The rowids of the documents holding the text. Three code points or more: the trigram index
   * answers, the needle quoted as one phrase (its `"` doubled), so FTS5 syntax in it (`*`,
   * `AND`, `NEAR`, `:`) is plain text; past PHRASE_LIMIT, its beginning, checked whole by instr.
   * Fewer, or a needle holding a NUL: a scan of the stored lowercased texts with instr, which
   * compares characters exactly as `includes` does.
   */
  private matches(text: string): number[] {
    const needle = text.toLowerCase();
    const known = this.found.get(needle);
    if (known) return known;
    let rowids: number[];
    const points = [...needle];
    const tests = this.fields.map((field) => `instr("${field}", ?) > 0`).join(' OR ');
    const eachField = this.fields.map(() => needle);
    // FTS5's query parser ends a string at a NUL; instr compares past it, as `includes` does.
    if (points.length < TRIGRAM || needle.includes('\0')) {
      rowids = this.host.statement(`SELECT rowid FROM ${this.table} WHERE ${tests}`).pluck().all(...eachField) as number[];
    } else if (points.length <= PHRASE_LIMIT) {
      // Its rarest trigrams find a superset, checked whole by instr: cheaper than walking the
      // lists of its common trigrams too, as the phrase does (see TrigramSample).
      const driving = this.sample.drivingTrigrams(points);
      rowids = driving
        ? (this.host.statement(`SELECT rowid FROM ${this.table} WHERE ${this.table} MATCH ? AND (${tests})`).pluck().all(driving.map(phrase).join(' AND '), ...eachField) as number[])
        : (this.host.statement(`SELECT rowid FROM ${this.table} WHERE ${this.table} MATCH ?`).pluck().all(phrase(needle)) as number[]);
    } else {
      // Rows holding the whole needle hold its beginning: the index finds those, instr keeps the rest.
      const head = points.slice(0, PHRASE_LIMIT).join('');
      rowids = this.host.statement(`SELECT rowid FROM ${this.table} WHERE ${this.table} MATCH ? AND (${tests})`).pluck().all(phrase(head), ...eachField) as number[];
    }
    if (this.found.size >= FOUND_CACHE_LIMIT) this.found.clear();
    this.found.set(needle, rowids);
    return rowids;
  }

  /** The rowids of the documents holding the text, as a JSON array (for json_each), and how many. */
  condition(text: string): { rowids: string; count: number } {
    const rowids = this.matches(text);
    return { rowids: JSON.stringify(rowids), count: rowids.length };
  }
}
