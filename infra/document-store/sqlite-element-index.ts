import type Database from 'better-sqlite3';
import type { Document } from './port.js';

/** What an element index asks of its collection's store: statements and the open write transaction. */
export interface ElementIndexHost {
  readonly db: Database.Database;
  statement(sql: string): Database.Statement;
  write<T>(work: () => T): T;
}

/** Documents read at a time when an index is filled from a collection that already holds some. */
const FILL_BATCH = 1000;

/**
 * A value the index holds, and so the only kind of value a filter may look up in it: a string or
 * a finite number. Anything else (booleans, null, objects, nested arrays) is left to the JSON
 * path of the filter.
 */
export function isElementValue(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** The values `{field: value}` can match in a document by way of this index: its array's elements, or the field itself. */
export function elementValues(value: unknown): (string | number)[] {
  return (Array.isArray(value) ? value : [value]).filter(isElementValue);
}

/**
 * A multi-value index of one top-level field (`site_ids`, `tag_slugs`): a side table of
 * (value, document rowid) with the value first in its key, written in the same transaction as
 * the document. An equality filter on the field then probes it instead of opening every
 * document's array with json_each: counting a site's posts among 100,000 read every post. The
 * value column has no type, so SQLite compares as the JSON path does: numbers with numbers
 * (1 equals 1.0), strings with strings, never one with the other.
 */
export class SqliteElementIndex {
  readonly table: string;
  /** Made once: every document write runs both. */
  private readonly insertSql: string;
  private readonly deleteSql: string;

  constructor(
    private readonly host: ElementIndexHost,
    private readonly documentsTable: string,
    private readonly tableName: string,
    readonly field: string,
  ) {
    this.table = `"${tableName}"`;
    this.insertSql = `INSERT OR IGNORE INTO ${this.table} (value, doc) VALUES (?, ?)`;
    this.deleteSql = `DELETE FROM ${this.table} WHERE doc = ?`;
  }

  /** Creates the table if missing, filling it from the stored documents (a collection that had none, or an older file). */
  ensure(): void {
    const exists =
      this.host.db
        .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`)
        .pluck()
        .get(this.tableName) !== undefined;
    if (exists) return;
    this.host.write(() => {
      this.host.db.exec(
        `CREATE TABLE ${this.table} (value NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (value, doc)) WITHOUT ROWID`,
      );
      this.host.db.exec(`CREATE INDEX "${this.tableName}__doc" ON ${this.table} (doc)`);
      // In batches: one connection cannot write while a read of it is still being stepped.
      const batch = this.host.db.prepare(
        `SELECT rowid, doc -> ? AS value FROM ${this.documentsTable} WHERE rowid > ? ORDER BY rowid LIMIT ${FILL_BATCH}`,
      );
      let last = -Infinity;
      for (;;) {
        const rows = batch.all(`$.${this.field}`, last) as { rowid: number; value: string | null }[];
        for (const row of rows) this.insert(row.rowid, row.value === null ? undefined : JSON.parse(row.value));
        if (rows.length < FILL_BATCH) break;
        last = rows[rows.length - 1].rowid;
      }
    });
  }

  private insert(rowid: number | bigint, value: unknown): void {
    const statement = this.host.statement(this.insertSql);
    for (const element of elementValues(value)) statement.run(element, rowid);
  }

  /** Replaces the document's rows (inside the caller's write transaction). */
  written(rowid: number | bigint, doc: Document): void {
    this.host.statement(this.deleteSql).run(rowid);
    this.insert(rowid, doc[this.field]);
  }

  /** Forgets the documents' rows (inside the caller's write transaction). */
  deleted(rowids: readonly (number | bigint)[]): void {
    const statement = this.host.statement(this.deleteSql);
    for (const rowid of rowids) statement.run(rowid);
  }

  drop(): void {
    this.host.write(() => this.host.db.exec(`DROP TABLE IF EXISTS ${this.table}`));
  }
}
