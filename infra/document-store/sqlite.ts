import Database from 'better-sqlite3';
import type { Collection, CollectionOptions, Document, DocumentStore, DropAllOptions, Filter, FindFieldsOptions, FindOptions, IndexSpec, TextQuery, TextSearchSpec, Update } from './port.js';
import { DependencyUnavailableError } from '../errors.js';
import { PreparedStatements } from '../prepared-statements.js';
import { BatchDocuments } from './batch-documents.js';
import { applyUpdate } from './document-updates.js';
import { checkedFields } from './picked-fields.js';
import { whereClause, type ElementTables } from './sql-filter.js';
import { UnsupportedQueryError, pathSegments, quotedName } from './sql-paths.js';
import { orderByClause } from './sql-sort.js';
import { SqliteElementIndex } from './sqlite-element-index.js';
import { owedTableOf, SqliteTextIndex } from './sqlite-text-index.js';
import { TextIndexWriter } from './text-index-writer.js';
import { requireTextFields, textFields } from './text-search.js';
import { clearUnsynced, markUnsynced, recoverUnsynced } from './unsynced-marker.js';

/** Every collection is a table named with this prefix, so dropAll finds them and nothing else. */
const TABLE_PREFIX = 'docs_';
const COLLECTION_NAME = /^[A-Za-z0-9_-]+$/;
const REGEX_CACHE_LIMIT = 200;
const ANSWER_CACHE_LIMIT = 200;
const ANSWER_DOCUMENTS_LIMIT = 500;
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

/** The collection's table, unquoted. */
function tableNameOf(name: string): string {
  if (!COLLECTION_NAME.test(name)) throw new UnsupportedQueryError(`the collection name "${name}" is not letters, digits, _ and -.`);
  return `${TABLE_PREFIX}${name}`;
}

function tableOf(name: string): string {
  return quotedName(tableNameOf(name));
}

/** The text table of a collection's table, in the text file (its owed rows: owedTableOf). */
function textTableOf(table: string): string {
  return `${table}__text`;
}

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
  return value === undefined || value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
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
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) throw new UnsupportedQueryError(`${name} must be a number of documents, not ${String(value)}.`);
  return Math.floor(value);
}

function checkId(doc: Document): void {
  const id: unknown = doc._id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) {
    throw new UnsupportedQueryError(`a document's _id must be a string or a finite number, not ${JSON.stringify(id)}.`);
  }
}

/**
 * What an update of a batch's document starts from, so a document handed out never changes:
 * a shallow copy whose top-level values the update goes into (an array or object) are copied
 * whole. Copying the whole document (as JSON) was a twentieth of a replay.
 */
function updateCopy<T extends Document>(doc: T, update: Update): T {
  const copy: Record<string, unknown> = { ...doc };
  // A malformed update or operator is applyUpdate's to refuse.
  if (update === null || typeof update !== 'object') return copy as T;
  for (const fields of Object.values(update) as unknown[]) {
    if (fields === null || typeof fields !== 'object') continue;
    for (const path of Object.keys(fields)) {
      const top = path.split('.')[0];
      const value = copy[top];
      if (value !== null && typeof value === 'object' && value === (doc as Record<string, unknown>)[top]) copy[top] = JSON.parse(JSON.stringify(value));
    }
  }
  return copy as T;
}

/** What a collection asks of its store: statements, and the write transaction of this turn. */
interface CollectionHost {
  readonly db: Database.Database;
  statement(sql: string): Database.Statement;
  /** Forgets remembered answers when another connection has committed since the last look (the rebuild CLI). */
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

class SqliteCollection<T extends Document> implements Collection<T> {
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
      if (field === '_id' || pathSegments(field).length !== 1) throw new UnsupportedQueryError(`the element index field "${field}" must be a top-level field other than _id.`);
      if (this.plain.has(field)) throw new UnsupportedQueryError(`collection ${this.name}: "${field}" is declared as a plain index, which holds no arrays.`);
      const index = new SqliteElementIndex(this.host, this.table, `${TABLE_PREFIX}${this.name}__elements__${field}`, field);
      this.elements.set(field, index);
      if (this.created) index.ensure();
    }
    this.elementTables = {
      tables: new Map([...this.elements].map(([field, index]) => [field, index.table])),
      rowid: `${this.table}.rowid`,
      rowsHolding: (table, values, limit) => {
        // A list's page and its total ask alike, and a remembered answer is looked up only after
        // its SQL is built: counted once until the collection changes (a stale count only picks
        // the other plan, never other rows).
        const key = `${table}\u0000${limit}\u0000${JSON.stringify(values)}`;
        let rows = this.holders.get(key);
        if (rows === undefined) {
          rows = this.host
            .statement(`SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE value IN (${values.map(() => '?').join(', ')}) LIMIT ?)`)
            .pluck()
            .get(...values, limit) as number;
          if (this.holders.size >= ANSWER_CACHE_LIMIT) this.holders.clear();
          this.holders.set(key, rows);
        }
        return rows;
      },
    };
  }

  /** Element index counts by table, limit and values, since the collection last changed. */
  private readonly holders = new Map<string, number>();

  /** Adds index declarations; documents already stored must hold indexable values in the new fields. */
  declare(specs: readonly IndexSpec[]): void {
    // The batch's documents are checked against the new fields with the stored ones.
    this.flushBatch();
    for (const spec of specs) {
      const fields = indexFields(spec);
      const key = fields.join(',');
      if (this.indexes.has(key)) continue;
      const arrays = fields.find((field) => this.elements.has(field));
      if (arrays) throw new UnsupportedQueryError(`collection ${this.name}: "${arrays}" has an element index, for arrays; it cannot be a plain index too.`);
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
      .statement(`SELECT _id FROM ${this.table} WHERE json_type(doc, '$.${field}') NOT IN ('text', 'integer', 'real', 'null') LIMIT 1`)
      .pluck()
      .get();
    if (offending !== undefined) {
      throw new UnsupportedQueryError(`collection ${this.name}: "${field}" cannot be indexed, document ${JSON.stringify(offending)} holds an array, object or boolean there.`);
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
    const extended = [...this.indexes.values()].some((other) => other.length > fields.length && fields.every((field, i) => other[i] === field));
    const expressions = fields.map((field) => `json_extract(doc, '$.${field}')`).join(', ');
    this.host.write(() => {
      if (extended) {
        this.host.db.exec(`DROP INDEX IF EXISTS ${nameOf(fields)}`);
        return;
      }
      this.host.db.exec(`CREATE INDEX IF NOT EXISTS ${nameOf(fields)} ON ${this.table} (${expressions})`);
      for (let length = 1; length < fields.length; length++) this.host.db.exec(`DROP INDEX IF EXISTS ${nameOf(fields.slice(0, length))}`);
    });
  }

  /** Creates the table and its indexes when first used (again after a drop). */
  private ensure(): void {
    if (this.created) return;
    this.host.write(() => this.host.db.exec(`CREATE TABLE IF NOT EXISTS ${this.table} (_id PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`));
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
        throw new UnsupportedQueryError(`collection ${this.name}: the indexed field "${field}" of document ${JSON.stringify(doc._id)} must hold a string, a number or null.`);
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
    const doc = json === undefined ? null : (JSON.parse(json) as T);
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
  private where(filter: Filter, query: TextQuery, driveLimit = DRIVE_LIMIT): { from: string; sql: string; params: (string | number)[] } {
    const where = whereClause(filter, this.plain, this.elementTables);
    if (query.text === undefined || query.text === '') {
      if (query.text === '') requireTextFields(this.name, this.text?.fields ?? null);
      return { from: this.table, ...where };
    }
    requireTextFields(this.name, this.text?.fields ?? null);
    const text = (this.text as SqliteTextIndex).condition(query.text);
    if (text.count <= driveLimit) {
      return { from: `json_each(?) AS text_match CROSS JOIN ${this.table} ON ${this.table}.rowid = text_match.value`, sql: where.sql, params: [text.rowids, ...where.params] };
    }
    return { from: this.table, sql: `(${where.sql}) AND rowid IN (SELECT value FROM json_each(?))`, params: [...where.params, text.rowids] };
  }

  /** `columns`: 'doc', 'rowid' (qualified here), or a list of expressions over the table's own columns. */
  private select(columns: string, filter: Filter, options: FindOptions = {}): { sql: string; params: (string | number)[] } {
    const id = idLookup(filter);
    // The most common read by far: one key, at most one row, nothing to translate or order.
    if (id !== undefined && !options.skip && options.text === undefined) return { sql: `SELECT ${columns} FROM ${this.table} WHERE _id = ?`, params: [id] };
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

  /**
   * Answers of reads since the collection last changed, by statement and parameters: lists read
   * far more often than they change, and a hit skips the query and the JSON parsing. The
   * documents are shared, as the port allows (callers never change them).
   */
  private readonly answers = new Map<string, unknown>();

  private remembered<R>(sql: string, params: readonly (string | number)[], read: () => R): R {
    this.host.noticeOtherWriters();
    const key = `${sql}\u0000${JSON.stringify(params)}`;
    if (this.answers.has(key)) return this.answers.get(key) as R;
    const answer = read();
    // A long list (every post, for an index the caller keeps itself) is read seldom: not kept twice.
    if (Array.isArray(answer) && answer.length > ANSWER_DOCUMENTS_LIMIT) return answer;
    if (this.answers.size >= ANSWER_CACHE_LIMIT) this.answers.clear();
    this.answers.set(key, answer);
    return answer;
  }

  /** Forgets every remembered answer: the collection changed (here or in another process). */
  changed(): void {
    this.host.noteChange();
    if (this.answers.size > 0) this.answers.clear();
    if (this.holders.size > 0) this.holders.clear();
    this.text?.changed();
  }

  /** Matching documents; `fresh` ones are parsed for this caller alone (an update changes them in place). */
  private rows(filter: Filter, options?: FindOptions, fresh = false): T[] {
    this.ensure();
    if (options?.fields) return this.picked(filter, options, checkedFields(options.fields));
    const { sql, params } = this.select('doc', filter, options);
    const read = () => (this.host.statement(sql).pluck().all(...params) as string[]).map((json) => JSON.parse(json) as T);
    // A text search is not remembered here: its parameters hold the matching rowids (the text
    // index remembers those). A copy of a remembered list: a caller may sort or splice what it gets.
    return fresh || options?.text ? read() : this.remembered(sql, params, read).slice();
  }

  /** `_id` and the asked fields of matching documents: only those fields are read out of the JSON and parsed. */
  private picked(filter: Filter, options: FindOptions, fields: string[]): T[] {
    // `->` gives each value as JSON (strings quoted, so they come back as strings), NULL when absent.
    const columns = ['_id', ...fields.map((field) => `doc -> '$.${field}'`)].join(', ');
    const { sql, params } = this.select(columns, filter, options);
    const read = () =>
      (this.host.statement(sql).raw().all(...params) as unknown[][]).map((row) => {
        const doc: Document = { _id: row[0] as T['_id'] };
        fields.forEach((field, i) => {
          const json = row[i + 1] as string | null;
          if (json !== null) doc[field] = JSON.parse(json) as unknown;
        });
        // The port's overload gives callers `Pick<T, fields | '_id'>`: this is that document.
        return doc as T;
      });
    return options.text ? read() : this.remembered(sql, params, read).slice();
  }

  /** The steps SQLite plans for a find (EXPLAIN QUERY PLAN), for tests that check an index serves it. */
  plan(filter: Filter, options?: FindOptions): string[] {
    this.ensure();
    const { sql, params } = this.select('doc', filter, options);
    return (this.host.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
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

  async count(filter: Filter = {}, options: TextQuery = {}): Promise<number> {
    this.flushBatch();
    this.ensure();
    const where = this.where(filter, options);
    const sql = `SELECT count(*) FROM ${where.from} WHERE ${where.sql}`;
    const read = () => this.host.statement(sql).pluck().get(...where.params) as number;
    return options.text ? read() : this.remembered(sql, where.params, read);
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
    const docs = this.rows(filter, limit === undefined ? {} : { limit }, true);
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
          const rowids = this.host.statement(sql).pluck().all(...params) as number[];
          const statement = this.host.statement(this.sql.deleteRow);
          for (const rowid of rowids) statement.run(rowid);
          text?.deleted(rowids);
          for (const index of this.elements.values()) index.deleted(rowids);
          return rowids.length;
        })
      : this.host.write(() => this.host.statement(`DELETE FROM ${this.table} WHERE rowid IN (${sql})`).run(...params).changes);
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

export interface SqliteDocumentStoreOptions {
  /** Milliseconds a statement waits for another connection's lock (a backup, the rebuild CLI). */
  busyTimeoutMs?: number;
  /**
   * How long writes gather in one transaction before it commits (default 50 ms). Read models
   * are rebuilt from the log, and a checkpoint is written after the documents it covers, so
   * any commit boundary leaves them consistent; committing per event made an import spend most
   * of its time in COMMIT and the WAL checkpoints it triggers.
   */
  commitIntervalMs?: number;
}

/** Commits by every SqliteDocumentStore of this process: a look at data_version is repeated after one. */
let commitsInThisProcess = 0;

/**
 * The connection's page cache, in KiB as SQLite's negative `cache_size` takes it: 4 MB instead
 * of the 16 MB better-sqlite3 builds it with. A server's lists, posts and text searches filled
 * the 16 MB within a few hundred requests and kept them for good (13 MB of its RSS), with no
 * measurable gain in their latency; the file's other pages come from the OS's cache
 * (bench/README.md, memory round 1).
 */
const PAGE_CACHE_KIB = -4000;

/** The text file's connection here only reads (searches): a small cache, as the vector index's. */
const TEXT_PAGE_CACHE_KIB = -2000;

/** The file of the read models' text indexes, beside theirs (`read-models.sqlite` → `read-models-text.sqlite`). */
export function textIndexFile(readModelsFile: string): string {
  return readModelsFile.endsWith('.sqlite') ? `${readModelsFile.slice(0, -'.sqlite'.length)}-text.sqlite` : `${readModelsFile}-text`;
}

/** The text file as a collection's text index uses it: read here, written by the thread. */
interface TextFile {
  statement(sql: string): Database.Statement;
  columnsOf(table: string): string[];
  writer: TextIndexWriter;
}

/**
 * The embedded read-model store: one SQLite file (WAL), one table of JSON documents per
 * collection, expression indexes on the fields each collection declares, filters translated to
 * SQL (sql-filter.ts). Read models survive a restart, so projections resume from their
 * checkpoints. Writes gather in one transaction that commits every `commitIntervalMs`: no write
 * waits for a commit of its own, and a checkpoint never commits before the documents it covers.
 */
export class SqliteDocumentStore implements DocumentStore {
  readonly persistent = true;
  private readonly db: Database.Database;
  private readonly collections = new Map<string, SqliteCollection<Document>>();
  private readonly statements: PreparedStatements;
  private readonly regexes = new Map<string, RegExp>();
  private commitTimer: NodeJS.Timeout | null = null;
  /** Batches running (batch()): the commit waits until none is, so each commits whole. */
  private batchesOpen = 0;
  private commitWaiting = false;
  /** When the open write transaction began (performance.now()). */
  private transactionBegan = 0;
  private readonly commitIntervalMs: number;
  private readonly host: CollectionHost;
  /** Changes when another connection commits to the file: remembered answers may be stale then. */
  private readonly dataVersion: Database.Statement;
  private lastDataVersion: number;
  /** Writes (and other processes' commits) seen so far: the change mark. */
  private changes = 0;
  /** Set once data_version was read in this turn of the event loop; cleared by the next check phase. */
  private lookedThisTurn = false;
  private commitsWhenLooked = 0;
  private readonly nextTurn = () => {
    this.lookedThisTurn = false;
  };

  private readonly file: string;
  private text: { db: Database.Database; statements: PreparedStatements; file: TextFile } | null = null;

  constructor(file: string, options: SqliteDocumentStoreOptions = {}) {
    this.file = file;
    if (file !== ':memory:') {
      const recovery = recoverUnsynced(file, textIndexFile(file));
      if (recovery === 'discarded') {
        process.emitWarning(`${file}: a rebuild that skipped syncing never finished, and the machine went down since: the read models were removed, and are replayed from the log.`);
      }
    }
    this.db = new Database(file);
    this.statements = new PreparedStatements(this.db);
    this.db.pragma('journal_mode = WAL');
    // Read models are rebuilt from the log: a commit lost to a power cut is replayed, not lost.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    this.db.pragma(`cache_size = ${PAGE_CACHE_KIB}`);
    this.commitIntervalMs = Math.max(0, options.commitIntervalMs ?? 50);
    this.db.function('mongo_regex', { deterministic: true }, (value: unknown, source: unknown, flags: unknown) =>
      typeof value === 'string' && this.regex(String(source), String(flags)).test(value) ? 1 : 0,
    );
    this.host = {
      db: this.db,
      statement: (sql) => this.statement(sql),
      write: (work) => this.write(work),
      noticeOtherWriters: () => this.noticeOtherWriters(),
      batching: () => this.batchesOpen > 0,
      textFile: () => this.openTextFile(),
      noteChange: () => {
        this.changes++;
      },
    };
    this.dataVersion = this.db.prepare('PRAGMA data_version').pluck();
    this.lastDataVersion = this.dataVersion.get() as number;
  }

  changeMark(): number {
    this.noticeOtherWriters();
    return this.changes;
  }

  /**
   * Reading data_version opens a read of the WAL index, which a list request paid three or four
   * times (a fifth of its handler in the read benchmark's profile). Once per turn of the event
   * loop is as good: the reads of one turn could all have run at the moment of the first, unless
   * a store of this process (another connection to the file, as in tests) committed meanwhile.
   */
  private noticeOtherWriters(): void {
    if (this.lookedThisTurn) {
      if (this.commitsWhenLooked === commitsInThisProcess) return;
    } else {
      this.lookedThisTurn = true;
      setImmediate(this.nextTurn).unref();
    }
    this.commitsWhenLooked = commitsInThisProcess;
    const version = this.dataVersion.get() as number;
    if (version === this.lastDataVersion) return;
    this.lastDataVersion = version;
    for (const collection of this.collections.values()) collection.changed();
  }

  private openTextFile(): TextFile {
    if (this.text) return this.text.file;
    const path = textIndexFile(this.file);
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma(`cache_size = ${TEXT_PAGE_CACHE_KIB}`);
    const statements = new PreparedStatements(db);
    const writer = new TextIndexWriter({ readModelsFile: this.file, textFile: path });
    const file: TextFile = {
      statement: (sql) => statements.get(sql),
      // While a drop of every table is on its way, the tables there are as good as gone.
      columnsOf: (table) => (writer.droppingAll ? [] : (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[])),
      writer,
    };
    this.text = { db, statements, file };
    return file;
  }

  private regex(source: string, flags: string): RegExp {
    const key = `${flags}/${source}`;
    let regex = this.regexes.get(key);
    if (!regex) {
      if (this.regexes.size >= REGEX_CACHE_LIMIT) this.regexes.clear();
      regex = new RegExp(source, flags);
      this.regexes.set(key, regex);
    }
    return regex;
  }

  private statement(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  private write<T>(work: () => T): T {
    if (!this.db.inTransaction) {
      try {
        this.db.exec('BEGIN IMMEDIATE');
        this.transactionBegan = performance.now();
      } catch (error) {
        // Another process (the rebuild CLI) has held the file past the busy timeout: the
        // projection runner waits and retries on this error instead of skipping the event.
        if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY')) {
          throw new DependencyUnavailableError('read models', 'The read-model file is locked by another process.');
        }
        throw error;
      }
      if (!this.commitTimer) {
        this.commitTimer = setTimeout(() => this.commit(), this.commitIntervalMs);
      }
    }
    return work();
  }

  /** Commits the open write transaction, unless a batch runs: then it commits when the last one ends. */
  private commit(force = false): void {
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    if (this.batchesOpen > 0 && !force) {
      this.commitWaiting = true;
      return;
    }
    this.commitWaiting = false;
    if (this.db.open && this.db.inTransaction) {
      for (const collection of this.collections.values()) collection.beforeCommit();
      this.db.exec('COMMIT');
      commitsInThisProcess++;
      for (const collection of this.collections.values()) collection.committed();
    }
  }

  /**
   * The writes of `work` commit in the same transaction (the one open when it ends, which may
   * hold other writes too): the commit interval's timer waits for it. Writes made before `work`
   * throws are kept and commit with the rest, as the port says.
   *
   * While a batch runs, documents read and written by key stay in each collection's batch
   * documents and reach the tables when it ends (or before a query that must see them), each
   * written once however many events changed it; the text rows of them all come last (see
   * `upsert`). The write lock is taken first, so a file another process holds refuses the batch
   * before any of its work (and the projection runner's checkpoints move only past batches
   * that will be written).
   */
  async batch<T>(work: () => Promise<T>): Promise<T> {
    this.batchesOpen++;
    let result: T;
    try {
      this.write(() => undefined);
      result = await work();
    } catch (error) {
      this.endBatch(false);
      throw error;
    }
    this.endBatch(true);
    return result;
  }

  /** Writes what the batch left to write; when its work failed, that failure is the one to report. */
  private endBatch(succeeded: boolean): void {
    try {
      this.flushBatches();
    } catch (error) {
      if (succeeded) throw error;
    } finally {
      // A replay's batches follow each other without a turn of the event loop, so the commit
      // timer never fires between them: past the interval, the batch that ends commits. The
      // text index thread then indexes beside the replay rather than after it.
      if (--this.batchesOpen === 0 && (this.commitWaiting || performance.now() - this.transactionBegan >= this.commitIntervalMs)) this.commit();
    }
  }

  private flushBatches(): void {
    for (const collection of this.collections.values()) collection.flushBatch();
  }

  collection<T extends Document>(name: string, options: CollectionOptions = {}): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new SqliteCollection<Document>(this.host, name);
      this.collections.set(name, collection);
    }
    collection.declareOnce(options);
    return collection as unknown as Collection<T>;
  }

  /**
   * Commits, then resolves once every text index holds every document written so far: its
   * thread has caught up (tests and benchmarks search the index itself so; a rebuild waits so).
   */
  async settled(): Promise<void> {
    this.commit(true);
    await Promise.all([...this.collections.values()].map((collection) => collection.textSettled()));
    // The marks the thread settled, removed.
    this.commit(true);
  }

  private deferringSync = false;

  /**
   * Runs `work` (a rebuild) with commits that skip the fsync, the read models' and the text
   * thread's, and syncs both files once at its end: a rebuild spent about a sixth of its time
   * waiting for the disk. A marker file says so meanwhile (unsynced-marker.ts): a server
   * started during it refuses to, and one started after a crash of it syncs the files and goes
   * on, or, when the machine went down since, starts them anew. Ends once the text index has
   * caught up, since the thread's writes are part of what is synced.
   */
  async deferSync<T>(work: () => Promise<T>): Promise<T> {
    if (this.deferringSync || this.file === ':memory:') return work();
    const writer = this.openTextFile().writer;
    markUnsynced(this.file);
    this.deferringSync = true;
    // SQLite refuses to change it inside a transaction.
    this.commit(true);
    this.db.pragma('synchronous = OFF');
    writer.setDurable(false);
    try {
      return await work();
    } finally {
      // Ends with a commit, so no transaction is open for the pragma.
      await this.settled();
      this.db.pragma('synchronous = NORMAL');
      writer.setDurable(true);
      this.deferringSync = false;
      clearUnsynced(this.file, textIndexFile(this.file));
    }
  }

  /** EXPLAIN QUERY PLAN of a find in a collection (tests check that the hot look-ups use an index). */
  plan(name: string, filter: Filter, options?: FindOptions): string[] {
    const collection = this.collection(name) as unknown as SqliteCollection<Document>;
    return collection.plan(filter, options);
  }

  async dropAll(options: DropAllOptions = {}): Promise<void> {
    const kept = (options.keep ?? []).map(tableNameOf);
    // A kept table's side tables (element indexes, owed text rows) are named after it.
    const isKept = (table: string) => kept.some((name) => table === name || table.startsWith(`${name}__`));
    // Text indexes (FTS5 virtual tables) first: dropping one drops its shadow tables, which
    // share the prefix and are then gone by the time the list reaches them.
    const tables = this.db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ${TABLE_PREFIX.length}) = ? ` +
          `ORDER BY substr(sql, 1, 20) = 'CREATE VIRTUAL TABLE' DESC`,
      )
      .pluck()
      .all(TABLE_PREFIX) as string[];
    // The text file is dropped whole, by its thread.
    const textKept = kept.find((table) => tables.includes(owedTableOf(textTableOf(table))));
    if (textKept) throw new UnsupportedQueryError(`a collection with a text index cannot be kept by dropAll (${textKept}).`);
    this.write(() => {
      for (const table of tables) if (!isKept(table)) this.db.exec(`DROP TABLE IF EXISTS ${quotedName(table)}`);
    });
    const keep = new Set(options.keep);
    for (const [name, collection] of this.collections) if (!keep.has(name)) collection.dropped();
    this.statements.clear();
    // The text indexes with them: a collection used meanwhile asks for its table anew, after the drop.
    await this.openTextFile().writer.dropAll();
  }

  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    if (!this.db.open) return;
    this.commit(true);
    if (this.text) {
      // The thread indexes what the last commit marked; the marks it settles meanwhile commit below.
      await this.text.file.writer.close();
      this.text.statements.clear();
      this.text.db.close();
      this.commit(true);
    }
    this.statements.clear();
    this.db.close();
  }
}
