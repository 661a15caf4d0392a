import type Database from 'better-sqlite3';
import type {
  Collection,
  CollectionOptions,
  Document,
  Filter,
  FindFieldsOptions,
  FindOptions,
  IndexSpec,
  TextQuery,
  TextSearchSpec,
  Update,
} from './port.js';
import { BatchDocuments, updateCopy } from './batch-documents.js';
import { applyUpdate } from './document-updates.js';
import { checkedFields } from './picked-fields.js';
import { whereClause, type ElementTables } from './sql-filter.js';
import { UnsupportedQueryError, pathSegments } from './sql-paths.js';
import { orderByClause } from './sql-sort.js';
import { TABLE_PREFIX, tableNameOf, tableOf, textTableOf } from './sqlite-tables.js';
import { SqliteElementIndex } from './sqlite-element-index.js';
import { SqliteTextIndex } from './sqlite-text-index.js';
import type { TextIndexWriter } from './text-index-writer.js';
import { requireTextFields, textFields } from './text-search.js';
import { parseStoredDocument } from './stored-document.js';

/** Element index counts kept at most (a list's page and its total ask alike). */
const HOLDER_COUNTS_LIMIT = 200;
/** Counts remembered at most between two changes of a collection; past it they start again from none. */
const REMEMBERED_COUNTS_LIMIT = 1000;
/**
 * Up to this many text matches drive a query: each is looked up by rowid and the other
 * conditions are tested on those rows alone (a few microseconds each: its document is parsed).
 * Past it, the matches are a set the query's own plan probes as it walks an index of the filter
 * or the order. SQLite cannot tell from a subquery how many rows it holds, and without
 * statistics it would walk a whole index probing even an empty set. A count walks its index to
 * the end (over 100,000 posts, 6 to 10 ms, about what 1,500 look-ups cost).
 */
const DRIVE_LIMIT = 1024;
/**
 * The same for a page (a query with a limit): walking the order's index stops once the page is
 * full, after about limit x rows / matches entries, so fewer matches pay for looking each up.
 */
const PAGE_DRIVE_LIMIT = 128;

/** The fields of an index declaration: top-level names only (their values are checked on every write). */
function indexFields(spec: IndexSpec): string[] {
  const fields = typeof spec === 'string' ? [spec] : [...spec];
  if (fields.length === 0) throw new UnsupportedQueryError('an index needs at least one field.');
  for (const field of fields) {
    if (field === '_id' || pathSegments(field).length !== 1) {
      throw new UnsupportedQueryError(`the index field "${field}" must be a top-level field other than _id.`);
    }
  }
  return fields;
}

function isIndexableValue(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** The key of a filter that is only `{_id: string or finite number}`. */
function idLookup(filter: Filter): string | number | undefined {
  const id = filter._id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) return undefined;
  for (const key in filter) if (key !== '_id') return undefined;
  return id;
}

/** A skip or limit as a whole number of rows; a negative or non-number one is a developer error. */
function windowNumber(name: string, value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0)
    throw new UnsupportedQueryError(`${name} must be a number of documents, not ${String(value)}.`);
  return Math.floor(value);
}

function checkId(doc: Document): void {
  const id: unknown = doc._id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) {
    throw new UnsupportedQueryError(`a document's _id must be a string or a finite number, not ${JSON.stringify(id)}.`);
  }
}

/** The text file as a collection's text index uses it: read here, written by the thread. */
export interface TextFile {
  statement(sql: string): Database.Statement;
  columnsOf(table: string): string[];
  writer: TextIndexWriter;
}

/** What a collection asks of its store: statements, and the write transaction of this turn. */
export interface CollectionHost {
  readonly db: Database.Database;
  statement(sql: string): Database.Statement;
  /** Forgets what the collections counted and matched when another connection has committed since the last look (the rebuild CLI). */
  noticeOtherWriters(): void;
  /** Runs `work` inside the open write transaction, which commits within the commit interval. */
  write<T>(work: () => T): T;
  /** True while a batch runs (DocumentStore.batch): key reads and writes then go through its documents. */
  batching(): boolean;
  /** The text file and its thread (sqlite-text-index.ts), opened when a collection first needs them. */
  textFile(): TextFile;
  /** A document of the collection was written or deleted, or may have been (the store's changeMark moves). */
  noteChange(): void;
}

/**
 * One collection of the embedded read-model store (sqlite.ts): a table of JSON documents with
 * the expression indexes, element indexes and text index it declares, read and written inside
 * the store's open write transaction, and through a running batch's documents by key.
 */
export class SqliteCollection<T extends Document> implements Collection<T> {
  private readonly table: string;
  /** Declared index fields: strings, numbers or null in every document, so filters compare them plainly. */
  private readonly plain = new Set<string>();
  private readonly indexes = new Map<string, string[]>();
  private text: SqliteTextIndex | null = null;
  /** Element indexes by field, and the same as the filter translator takes them (null when none). */
  private readonly elements = new Map<string, SqliteElementIndex>();
  private elementTables: ElementTables | null = null;
  private created = false;
  /** The documents the running batch has read or written by key (empty outside a batch). */
  private readonly batchDocs = new BatchDocuments<T>();

  /** The statements each write runs, their SQL made once: a template per call cost a replay a few per cent. */
  private readonly sql: { upsert: string; rowidOf: string; docOf: string; deleteRow: string };

  constructor(
    private readonly host: CollectionHost,
    readonly name: string,
  ) {
    this.table = tableOf(name);
    this.sql = {
      upsert: `INSERT INTO ${this.table} (_id, doc) VALUES (?, ?) ON CONFLICT (_id) DO UPDATE SET doc = excluded.doc`,
      rowidOf: `SELECT rowid FROM ${this.table} WHERE _id = ?`,
      docOf: `SELECT doc FROM ${this.table} WHERE _id = ?`,
      deleteRow: `DELETE FROM ${this.table} WHERE rowid = ?`,
    };
  }

  /** The option objects this collection has declared (one collection's, not the store's: two may share one). */
  private readonly declaredOptions = new WeakSet<readonly IndexSpec[] | TextSearchSpec | readonly string[]>();

  /** Accessors pass the same constant options on every call: declared once, then only looked up. */
  declareOnce(options: CollectionOptions): void {
    if (options.indexes && !this.declaredOptions.has(options.indexes)) {
      this.declare(options.indexes);
      this.declaredOptions.add(options.indexes);
    }
    if (options.textSearch && !this.declaredOptions.has(options.textSearch)) {
      this.declareText(options.textSearch);
      this.declaredOptions.add(options.textSearch);
    }
    if (options.elementIndexes && !this.declaredOptions.has(options.elementIndexes)) {
      this.declareElements(options.elementIndexes);
      this.declaredOptions.add(options.elementIndexes);
    }
  }

  /** Adds element indexes (the side table is made, and filled, when the collection is first used). */
  declareElements(fields: readonly string[]): void {
    this.flushBatch();
    for (const field of fields) {
      if (this.elements.has(field)) continue;
      if (field === '_id' || pathSegments(field).length !== 1)
        throw new UnsupportedQueryError(`the element index field "${field}" must be a top-level field other than _id.`);
      if (this.plain.has(field))
        throw new UnsupportedQueryError(
          `collection ${this.name}: "${field}" is declared as a plain index, which holds no arrays.`,
        );
      const index = new SqliteElementIndex(
        this.host,
        this.table,
        `${TABLE_PREFIX}${this.name}__elements__${field}`,
        field,
      );
      this.elements.set(field, index);
      if (this.created) index.ensure();
    }
    this.elementTables = {
      tables: new Map([...this.elements].map(([field, index]) => [field, index.table])),
      rowid: `${this.table}.rowid`,
      rowsHolding: (table, values, limit) => {
        // A list's page and its total ask alike: counted once until the collection changes (a
        // stale count only picks the other plan, never other rows).
        const key = `${table}\u0000${limit}\u0000${JSON.stringify(values)}`;
        let rows = this.holders.get(key);
        if (rows === undefined) {
          rows = this.host
            .statement(
              `SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE value IN (${values.map(() => '?').join(', ')}) LIMIT ?)`,
            )
            .pluck()
            .get(...values, limit) as number;
          if (this.holders.size >= HOLDER_COUNTS_LIMIT) this.holders.clear();
          this.holders.set(key, rows);
        }
        return rows;
      },
    };
  }

  /** Element index counts by table, limit and values, since the collection last changed. */
  private readonly holders = new Map<string, number>();
  /** Counts asked since the collection last changed (`count`). */
  private readonly counts = new Map<string, number>();

  /** Adds index declarations; documents already stored must hold indexable values in the new fields. */
  declare(specs: readonly IndexSpec[]): void {
    // The batch's documents are checked against the new fields with the stored ones.
    this.flushBatch();
    for (const spec of specs) {
      const fields = indexFields(spec);
      const key = fields.join(',');
      if (this.indexes.has(key)) continue;
      const arrays = fields.find((field) => this.elements.has(field));
      if (arrays)
        throw new UnsupportedQueryError(
          `collection ${this.name}: "${arrays}" has an element index, for arrays; it cannot be a plain index too.`,
        );
      const newFields = fields.filter((field) => !this.plain.has(field));
      if (this.created) for (const field of newFields) this.checkStored(field);
      this.indexes.set(key, fields);
      for (const field of fields) this.plain.add(field);
      if (this.created) this.createIndex(fields);
    }
  }

  /** Declares the text fields (the FTS5 table is made, and filled, when the collection is first used). */
  declareText(spec: TextSearchSpec): void {
    const fields = textFields(spec);
    if (this.text && this.text.fields.join(',') === fields.join(',')) return;
    this.flushBatch();
    const table = tableNameOf(this.name);
    this.text = new SqliteTextIndex(this.host, table, textTableOf(table), fields);
    if (this.created) this.text.ensure();
  }

  private checkStored(field: string): void {
    const offending = this.host
      .statement(
        `SELECT _id FROM ${this.table} WHERE json_type(doc, '$.${field}') NOT IN ('text', 'integer', 'real', 'null') LIMIT 1`,
      )
      .pluck()
      .get();
    if (offending !== undefined) {
      throw new UnsupportedQueryError(
        `collection ${this.name}: "${field}" cannot be indexed, document ${JSON.stringify(offending)} holds an array, object or boolean there.`,
      );
    }
  }

  /**
   * Creates the index and drops those its fields begin with: a longer index answers every query
   * a prefix of it would, and a file written under an earlier declaration may hold one (the
   * blog's list indexes were given `published_at`). An index that a longer declared one begins
   * with is dropped instead of made, so the two declarations never undo each other at a start.
   */
  private createIndex(fields: string[]): void {
    const nameOf = (of: readonly string[]) => `"${TABLE_PREFIX}${this.name}__${of.join('__')}"`;
    const extended = [...this.indexes.values()].some(
      (other) => other.length > fields.length && fields.every((field, i) => other[i] === field),
    );
    const expressions = fields.map((field) => `json_extract(doc, '$.${field}')`).join(', ');
    this.host.write(() => {
      if (extended) {
        this.host.db.exec(`DROP INDEX IF EXISTS ${nameOf(fields)}`);
        return;
      }
      this.host.db.exec(`CREATE INDEX IF NOT EXISTS ${nameOf(fields)} ON ${this.table} (${expressions})`);
      for (let length = 1; length < fields.length; length++)
        this.host.db.exec(`DROP INDEX IF EXISTS ${nameOf(fields.slice(0, length))}`);
    });
  }

  /** Creates the table and its indexes when first used (again after a drop). */
  private ensure(): void {
    if (this.created) return;
    this.host.write(() =>
      this.host.db.exec(`CREATE TABLE IF NOT EXISTS ${this.table} (_id PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`),
    );
    this.created = true;
    for (const fields of this.indexes.values()) this.createIndex(fields);
    this.text?.ensure();
    for (const index of this.elements.values()) index.ensure();
  }

  /** Forgets the table (it was dropped): the next use creates it again. */
  dropped(): void {
    this.created = false;
    this.batchDocs.clear();
    this.text?.dropped();
    this.changed();
  }

  /**
   * The open transaction was lost (rolled back): whatever this collection made or wrote in it
   * is gone, so the next use makes its tables again if need be, and nothing of it is remembered.
   */
  rolledBack(): void {
    this.created = false;
    this.batchDocs.clear();
    this.text?.rolledBack();
    this.changed();
  }

  /** The read models are about to commit (inside the transaction). */
  beforeCommit(): void {
    this.text?.beforeCommit();
  }

  /** The read models committed: the text index's thread may index what this collection marked. */
  committed(): void {
    this.text?.committed();
  }

  /** Resolves once the text index holds every document written so far (nothing pending). */
  async textSettled(): Promise<void> {
    await this.text?.settled();
  }

  /** Refuses a document the table cannot hold, when it is written (in a batch too, so its event is the one that fails). */
  private check(doc: T): void {
    for (const field of this.plain) {
      if (!isIndexableValue(doc[field])) {
        throw new UnsupportedQueryError(
          `collection ${this.name}: the indexed field "${field}" of document ${JSON.stringify(doc._id)} must hold a string, a number or null.`,
        );
      }
    }
    checkId(doc);
  }

  private encodeChecked(doc: T): string {
    this.check(doc);
    return JSON.stringify(doc);
  }

  /** The key of a filter the running batch answers (only `{_id}`), undefined outside a batch or for any other filter. */
  private batchKey(filter: Filter): T['_id'] | undefined {
    return this.host.batching() ? idLookup(filter) : undefined;
  }

  /** The document by key as the batch sees it: its own write, else the table's, read once per batch. */
  private batchRead(id: T['_id']): T | null {
    const known = this.batchDocs.get(id);
    if (known) return known.doc;
    this.ensure();
    // Straight to the row: the batch remembers it, and a replay's reads are mostly of documents not yet written.
    const json = this.host.statement(this.sql.docOf).pluck().get(id) as string | undefined;
    const doc = json === undefined ? null : parseStoredDocument<T>(json);
    this.batchDocs.read(id, doc);
    return doc;
  }

  /**
   * Writes the batch's documents to the table: at the end of the batch, or before a query by
   * anything but the key, which must see them.
   */
  flushBatch(): void {
    if (this.batchDocs.size === 0) return;
    const { written, deleted } = this.batchDocs.drain();
    // Deletes first, and owed text rows in the same order: a rowid freed here may be taken again below.
    for (const id of deleted) this.deleteRows({ _id: id });
    if (written.length > 0) {
      this.ensure();
      this.upsert(written.map((doc) => [doc._id, JSON.stringify(doc), doc]));
    }
  }

  /**
   * The FROM and WHERE of a filter and, if any, a text search: few matches drive the query from
   * their rowids (CROSS JOIN keeps that order), more are a set the plan probes.
   */
  private where(
    filter: Filter,
    query: TextQuery,
    driveLimit = DRIVE_LIMIT,
  ): { from: string; sql: string; params: (string | number)[] } {
    const where = whereClause(filter, this.plain, this.elementTables);
    if (query.text === undefined || query.text === '') {
      if (query.text === '') requireTextFields(this.name, this.text?.fields ?? null);
      return { from: this.table, ...where };
    }
    requireTextFields(this.name, this.text?.fields ?? null);
    const text = (this.text as SqliteTextIndex).condition(query.text);
    if (text.count <= driveLimit) {
      return {
        from: `json_each(?) AS text_match CROSS JOIN ${this.table} ON ${this.table}.rowid = text_match.value`,
        sql: where.sql,
        params: [text.rowids, ...where.params],
      };
    }
    return {
      from: this.table,
      sql: `(${where.sql}) AND rowid IN (SELECT value FROM json_each(?))`,
      params: [...where.params, text.rowids],
    };
  }

  /** `columns`: 'doc', 'rowid' (qualified here), or a list of expressions over the table's own columns. */
  private select(
    columns: string,
    filter: Filter,
    options: FindOptions = {},
  ): { sql: string; params: (string | number)[] } {
    const id = idLookup(filter);
    // The most common read by far: one key, at most one row, nothing to translate or order.
    if (id !== undefined && !options.skip && options.text === undefined)
      return { sql: `SELECT ${columns} FROM ${this.table} WHERE _id = ?`, params: [id] };
    const where = this.where(filter, options, options.limit === undefined ? DRIVE_LIMIT : PAGE_DRIVE_LIMIT);
    // Qualified: a text search's rowid list beside the table has a rowid too.
    const column = columns === 'rowid' ? `${this.table}.rowid` : columns;
    const order = orderByClause(options.sort, this.plain).replace(/rowid$/, `${this.table}.rowid`);
    let sql = `SELECT ${column} FROM ${where.from} WHERE ${where.sql} ${order}`;
    const params = [...where.params];
    const skip = windowNumber('skip', options.skip ?? 0);
    const limit = options.limit === undefined ? -1 : windowNumber('limit', options.limit);
    if (limit !== -1 || skip > 0) {
      // Past SQLite's 64-bit integers (a page number of 23 digits) means past every row, or no limit.
      sql += ' LIMIT ? OFFSET ?';
      params.push(limit > Number.MAX_SAFE_INTEGER ? -1 : limit, Math.min(skip, Number.MAX_SAFE_INTEGER));
    }
    return { sql, params };
  }

  /** Forgets what was counted and matched: the collection changed (here or in another process). */
  changed(): void {
    this.host.noteChange();
    if (this.holders.size > 0) this.holders.clear();
    if (this.counts.size > 0) this.counts.clear();
    this.text?.changed();
  }

  /**
   * Matching documents, read and parsed for this caller (an update changes them in place). Not
   * remembered here: the blog list's whole answers are (routes/remembered-answers.ts), and a
   * second cache below it paid nothing in the read and write benchmarks (docs/perf-history.md).
   */
  private rows(filter: Filter, options?: FindOptions): T[] {
    this.ensure();
    this.host.noticeOtherWriters();
    if (options?.fields) return this.picked(filter, options, checkedFields(options.fields));
    const { sql, params } = this.select('doc', filter, options);
    return (
      this.host
        .statement(sql)
        .pluck()
        .all(...params) as string[]
    ).map((json) => parseStoredDocument<T>(json));
  }

  /** `_id` and the asked fields of matching documents: only those fields are read out of the JSON and parsed. */
  private picked(filter: Filter, options: FindOptions, fields: string[]): T[] {
    // `->` gives each value as JSON (strings quoted, so they come back as strings), NULL when absent.
    const columns = ['_id', ...fields.map((field) => `doc -> '$.${field}'`)].join(', ');
    const { sql, params } = this.select(columns, filter, options);
    return (
      this.host
        .statement(sql)
        .raw()
        .all(...params) as unknown[][]
    ).map((row) => {
      const doc: Document = { _id: row[0] as T['_id'] };
      fields.forEach((field, i) => {
        const json = row[i + 1] as string | null;
        if (json !== null) doc[field] = JSON.parse(json) as unknown;
      });
      // The port's overload gives callers `Pick<T, fields | '_id'>`: this is that document.
      return doc as T;
    });
  }

  /** The steps SQLite plans for a find (EXPLAIN QUERY PLAN), for tests that check an index serves it. */
  plan(filter: Filter, options?: FindOptions): string[] {
    this.ensure();
    const { sql, params } = this.select('doc', filter, options);
    return (this.host.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
      (row) => row.detail,
    );
  }

  async findOne(filter: Filter): Promise<T | null> {
    const id = this.batchKey(filter);
    if (id !== undefined) return this.batchRead(id);
    this.flushBatch();
    return this.rows(filter, { limit: 1 })[0] ?? null;
  }

  find<K extends keyof T & string>(filter: Filter, options: FindFieldsOptions<K>): Promise<Pick<T, K | '_id'>[]>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    this.flushBatch();
    if (options.limit === 0) {
      this.where(filter, options);
      return [];
    }
    return this.rows(filter, options);
  }

  /**
   * Counts by their SQL and parameters until the collection changes (here, or in another
   * process: `changed`): a list's total is asked again by every page and every URL that differs
   * only in what the list ignores, and counting walks every match. Not for a text search,
   * whose index is written by its own thread.
   */
  async count(filter: Filter = {}, options: TextQuery = {}): Promise<number> {
    this.flushBatch();
    this.ensure();
    this.host.noticeOtherWriters();
    const where = this.where(filter, options);
    const sql = `SELECT count(*) FROM ${where.from} WHERE ${where.sql}`;
    const key = options.text === undefined ? `${sql}\u0000${JSON.stringify(where.params)}` : undefined;
    const known = key === undefined ? undefined : this.counts.get(key);
    if (known !== undefined) return known;
    const counted = this.host
      .statement(sql)
      .pluck()
      .get(...where.params) as number;
    if (key !== undefined) {
      if (this.counts.size >= REMEMBERED_COUNTS_LIMIT) this.counts.clear();
      this.counts.set(key, counted);
    }
    return counted;
  }

  /** Writes each document as [its id, its JSON, the document itself (for the element indexes)]. */
  private upsert(rows: [T['_id'], string, T][]): void {
    const upsert = this.sql.upsert;
    const text = this.text;
    if (text || this.elements.size > 0) {
      // The rowid the document row has (kept by an update, new on an insert) keys its owed text
      // mark and its elements. It is looked up after the upsert rather than taken with RETURNING:
      // when the file held the FTS5 table too, an upsert with RETURNING took 150 to 450 us against
      // 5 to 10 us for both statements (better-sqlite3 12.11, SQLite 3.53).
      const statement = this.host.statement(upsert);
      const rowidOf = this.host.statement(this.sql.rowidOf).pluck();
      this.host.write(() => {
        for (const [id, json, doc] of rows) {
          statement.run(id, json);
          const rowid = rowidOf.get(id) as number;
          for (const index of this.elements.values()) index.written(rowid, doc);
          text?.written(rowid);
        }
      });
    } else {
      const statement = this.host.statement(upsert);
      this.host.write(() => {
        for (const [id, json] of rows) statement.run(id, json);
      });
    }
    if (rows.length > 0) this.changed();
  }

  async put(doc: T): Promise<void> {
    this.ensure();
    if (this.host.batching()) {
      this.check(doc);
      this.batchDocs.write(doc);
      this.host.noteChange();
      return;
    }
    this.upsert([[doc._id, this.encodeChecked(doc), doc]]);
  }

  /**
   * The look and the write run without a pause, so no other write of this process comes between;
   * the file is one DATA_DIR's, whose processes share one log, so none of another log races it.
   */
  async insert(doc: T): Promise<boolean> {
    this.ensure();
    if (!this.host.batching()) this.flushBatch();
    const present = this.host.batching() ? this.batchRead(doc._id) : this.rows({ _id: doc._id }, { limit: 1 })[0];
    if (present) return false;
    await this.put(doc);
    return true;
  }

  async putMany(docs: T[]): Promise<void> {
    this.ensure();
    // Every document is checked before the first is written: a bad one leaves none half stored.
    if (this.host.batching()) {
      for (const doc of docs) this.check(doc);
      for (const doc of docs) this.batchDocs.write(doc);
      this.host.noteChange();
      return;
    }
    this.upsert(docs.map((doc) => [doc._id, this.encodeChecked(doc), doc]));
  }

  private update(filter: Filter, update: Update, limit?: number): number {
    const id = this.batchKey(filter);
    if (id !== undefined) {
      const current = this.batchRead(id);
      if (!current) return 0;
      const doc = updateCopy(current, update);
      applyUpdate(doc, update);
      this.check(doc);
      this.batchDocs.write(doc);
      this.host.noteChange();
      return 1;
    }
    this.flushBatch();
    const docs = this.rows(filter, limit === undefined ? {} : { limit });
    const rows = docs.map((doc): [T['_id'], string, T] => {
      const id = doc._id;
      applyUpdate(doc, update);
      return [id, this.encodeChecked(doc), doc];
    });
    this.upsert(rows);
    return rows.length;
  }

  async updateOne(filter: Filter, update: Update): Promise<number> {
    return this.update(filter, update, 1);
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    return this.update(filter, update);
  }

  private delete(filter: Filter, limit?: number): number {
    const id = this.batchKey(filter);
    if (id !== undefined) {
      if (!this.batchRead(id)) return 0;
      this.batchDocs.delete(id);
      this.host.noteChange();
      return 1;
    }
    this.flushBatch();
    return this.deleteRows(filter, limit);
  }

  private deleteRows(filter: Filter, limit?: number): number {
    this.ensure();
    const { sql, params } = this.select('rowid', filter, limit === undefined ? {} : { limit });
    const text = this.text;
    const sided = text !== null || this.elements.size > 0;
    const deleted = sided
      ? this.host.write(() => {
          const rowids = this.host
            .statement(sql)
            .pluck()
            .all(...params) as number[];
          const statement = this.host.statement(this.sql.deleteRow);
          for (const rowid of rowids) statement.run(rowid);
          text?.deleted(rowids);
          for (const index of this.elements.values()) index.deleted(rowids);
          return rowids.length;
        })
      : this.host.write(
          () => this.host.statement(`DELETE FROM ${this.table} WHERE rowid IN (${sql})`).run(...params).changes,
        );
    if (deleted > 0) this.changed();
    return deleted;
  }

  async deleteOne(filter: Filter): Promise<number> {
    return this.delete(filter, 1);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.delete(filter);
  }

  async drop(): Promise<void> {
    this.batchDocs.clear();
    this.host.write(() => this.host.db.exec(`DROP TABLE IF EXISTS ${this.table}`));
    this.text?.drop();
    for (const index of this.elements.values()) index.drop();
    this.dropped();
  }
}
