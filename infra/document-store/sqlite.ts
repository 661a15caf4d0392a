import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import type {
  Collection,
  CollectionOptions,
  CommitWatcher,
  Document,
  DocumentStore,
  DropAllOptions,
  Filter,
  FindOptions,
} from './port.js';
import { DependencyUnavailableError } from '../errors.js';
import {
  isStorageFailure,
  StorageFailureRecord,
  translateStorageError,
  type StorageFailure,
} from '../storage-errors.js';
import { PreparedStatements } from '../prepared-statements.js';
import { UnsupportedQueryError, quotedName } from './sql-paths.js';
import { SqliteCollection, type CollectionHost, type TextFile } from './sqlite-collection.js';
import { TABLE_PREFIX, tableNameOf, textIndexFile, textTableOf } from './sqlite-tables.js';
import { owedTableOf } from './sqlite-text-index.js';
import { TextIndexWriter } from './text-index-writer.js';
import { clearUnsynced, markUnsynced, recoverUnsynced } from './unsynced-marker.js';

const REGEX_CACHE_LIMIT = 200;

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
 * (docs/perf-history.md, "Memory, round 1").
 */
const PAGE_CACHE_KIB = -4000;

/** The text file's connection here only reads (searches): a small cache, as the vector index's. */
const TEXT_PAGE_CACHE_KIB = -2000;

/**
 * The embedded read-model store: one SQLite file (WAL), one table of JSON documents per
 * collection, expression indexes on the fields each collection declares, filters translated to
 * SQL (sql-filter.ts). Read models survive a restart, so projections resume from their
 * checkpoints. Writes gather in one transaction that commits every `commitIntervalMs`: no write
 * waits for a commit of its own, and a checkpoint never commits before the documents it covers.
 *
 * A write or commit the storage refuses (a full disk, an I/O error) loses the whole open
 * transaction: SQLite rolls it back itself after SQLITE_FULL, and what it leaves is rolled back
 * here. The store then forgets what it held of those writes (tables made, batch documents,
 * text marks), tells its commit watchers (the projection runner goes back to its last committed
 * checkpoints and folds again from the log), and the next write starts a new transaction. A
 * commit of the timer never throws: its failure goes to the watchers.
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
  /** Changes when another connection commits to the file: what the collections counted and matched may be stale then. */
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
  private readonly watchers = new Set<CommitWatcher>();
  private readonly failures: StorageFailureRecord;
  /** Write transactions begun, and the last of them lost: each loss is handled once. */
  private transactions = 0;
  private lostTransaction = 0;
  /**
   * Why the running batches' writes were lost, until the last of them ends: a batch whose earlier
   * writes are gone writes nothing more (its later writes would commit without them).
   */
  private batchLoss: unknown = null;

  constructor(file: string, options: SqliteDocumentStoreOptions = {}) {
    this.file = file;
    this.failures = new StorageFailureRecord(file === ':memory:' ? null : dirname(file));
    if (file !== ':memory:') {
      const recovery = recoverUnsynced(file, textIndexFile(file));
      if (recovery === 'discarded') {
        process.emitWarning(
          `${file}: a rebuild that skipped syncing never finished, and the machine went down since: the read models were removed, and are replayed from the log.`,
        );
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
      columnsOf: (table) =>
        writer.droppingAll ? [] : (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]),
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
    if (this.batchLoss !== null) throw this.batchLoss;
    if (!this.db.inTransaction) {
      try {
        this.db.exec('BEGIN IMMEDIATE');
        this.transactionBegan = performance.now();
        this.transactions++;
      } catch (error) {
        // Another process (the rebuild CLI) has held the file past the busy timeout: the
        // projection runner waits and retries on this error instead of skipping the event.
        if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY')) {
          throw new DependencyUnavailableError('read models', 'The read-model file is locked by another process.');
        }
        throw translateStorageError(error, 'read models');
      }
      if (!this.commitTimer) {
        this.commitTimer = setTimeout(() => this.commit(), this.commitIntervalMs);
      }
    }
    try {
      return work();
    } catch (error) {
      // A refusal of the storage, or any error after which SQLite has ended the transaction
      // itself, loses every write of it; any other (a statement refused alone) keeps the rest.
      if (isStorageFailure(error) || !this.db.inTransaction) throw this.lose(error);
      throw error;
    }
  }

  /**
   * The open transaction's writes are lost (see the class comment): rolled back if SQLite has
   * not already, forgotten, and the watchers told, once per transaction. Answers the error as a
   * project error, for the caller to throw.
   */
  private lose(error: unknown): unknown {
    const refusal = translateStorageError(error, 'read models');
    if (this.lostTransaction === this.transactions) return refusal;
    this.lostTransaction = this.transactions;
    if (this.db.open && this.db.inTransaction) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite ends the transaction even when its rollback fails.
      }
    }
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    this.commitWaiting = false;
    if (this.batchesOpen > 0) this.batchLoss = refusal;
    for (const collection of this.collections.values()) collection.rolledBack();
    this.failures.failed(error);
    const reported = refusal instanceof Error ? refusal : new Error(String(refusal));
    if (this.watchers.size === 0)
      process.emitWarning(`The read models' uncommitted writes were lost: ${reported.message}`);
    for (const watcher of this.watchers) watcher.lost(reported);
    return refusal;
  }

  watchCommits(watcher: CommitWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  storageFailure(): StorageFailure | null {
    return this.failures.get();
  }

  /**
   * Commits the open write transaction, unless a batch runs: then it commits when the last one
   * ends. A failed commit loses the transaction (`lose`); it is thrown only when `rethrow` (a
   * caller that waits for the commit), never from the timer.
   */
  private commit(force = false, rethrow = false): void {
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    if (this.batchesOpen > 0 && !force) {
      this.commitWaiting = true;
      return;
    }
    this.commitWaiting = false;
    if (this.db.open && this.db.inTransaction) {
      try {
        for (const collection of this.collections.values()) collection.beforeCommit();
        this.db.exec('COMMIT');
      } catch (error) {
        const refusal = this.lose(error);
        if (rethrow) throw refusal;
        return;
      }
      commitsInThisProcess++;
      this.failures.succeeded();
      for (const collection of this.collections.values()) collection.committed();
      for (const watcher of this.watchers) watcher.committed();
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
    let lost: unknown = null;
    try {
      this.flushBatches();
    } catch (error) {
      if (succeeded) throw error;
    } finally {
      lost = this.batchLoss;
      if (--this.batchesOpen === 0) {
        this.batchLoss = null;
        // A replay's batches follow each other without a turn of the event loop, so the commit
        // timer never fires between them: past the interval, the batch that ends commits. The
        // text index thread then indexes beside the replay rather than after it.
        if (this.commitWaiting || performance.now() - this.transactionBegan >= this.commitIntervalMs)
          this.commit(false, succeeded && lost === null);
      }
    }
    // The batch's writes went with a lost transaction (another batch's failure, or a commit).
    if (succeeded && lost !== null) throw lost;
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
    this.commit(true, true);
    await Promise.all([...this.collections.values()].map((collection) => collection.textSettled()));
    // The marks the thread settled, removed.
    this.commit(true, true);
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
    this.commit(true, true);
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
    if (textKept)
      throw new UnsupportedQueryError(`a collection with a text index cannot be kept by dropAll (${textKept}).`);
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
    // A last commit the storage refuses is lost like any other (its watchers are told): the
    // next start folds it again from the checkpoints, so the file still closes.
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
