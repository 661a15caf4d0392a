import type Database from 'better-sqlite3';
import { isStorageFailure } from '../storage-errors.js';
import { quotedName as quoted } from './sql-paths.js';
import { SEQUENCE_ROW, type TextIndexSpec } from './text-index-messages.js';
import type { TextIndexWriter } from './text-index-writer.js';
import { containsText } from './text-search.js';
import { TrigramSample } from './trigram-sample.js';
import { errorMessage } from '../../infra/errors.js';
import { parseStoredDocument } from './stored-document.js';

/** What the text index asks of its collection's store. */
export interface TextIndexHost {
  /** The read-model file's connection. */
  readonly db: Database.Database;
  statement(sql: string): Database.Statement;
  write<T>(work: () => T): T;
  /** The text file, read here and written by the text index thread alone. */
  textFile(): {
    statement(sql: string): Database.Statement;
    columnsOf(table: string): string[];
    writer: TextIndexWriter;
  };
}

/** The read-model table of a text table's owed rows. */
export function owedTableOf(textTable: string): string {
  return `${textTable}_owed`;
}

/** Needles shorter than this (in code points) have no trigram: they are found by a scan instead. */
const TRIGRAM = 3;
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
 * A collection's text search in SQLite: an FTS5 table, one column per text field, keyed by the
 * document row's rowid, in a file of its own (the read models' file name with `-text`) that a
 * thread writes (text-index-thread.ts): building a post's trigram rows was most of a create's
 * cost on the main thread. Each field is held lowercased by JavaScript (so case folding is
 * exactly the reference's `toLowerCase`) and the trigram tokenizer is case-sensitive on top of
 * that: a quoted phrase of the lowercased needle matches exactly the rows holding it.
 *
 * Every write of a document marks its rowid owed, with a sequence number, in a table of the
 * read-model file, in the write's own transaction; after the commit the thread indexes the owed
 * rows from the committed documents, and the marks it reports done are removed (unless a later
 * write marked the row again). Until then a search takes the index's matches less the owed
 * rows, plus the owed rows whose document holds the needle, so it sees every write at once. A crash loses nothing: the marks commit with the documents, and a
 * start sends the thread whatever is still owed.
 */
export class SqliteTextIndex {
  readonly table: string;
  private readonly spec: TextIndexSpec;
  /** Rowid to the number of its last mark, for the rows this process marked and the thread has not reported (settled()). */
  private readonly pending = new Map<number, number>();
  private sequence = 0;
  /** False until the thread has made the table (the index answers nothing before). */
  private ready = false;
  private ensured = false;
  /** Owed rows written since the last commit: the thread is asked to look after it. */
  private unsent = false;
  /**
   * Requests for a table sent and not yet answered (the answers come in order): until none is
   * left, the table there may be an old one, or about to go, and answers nothing.
   */
  private tablesAsked = 0;
  /** Whether the last table asked for is empty anew (the collection was dropped), asked again if the thread fails. */
  private lastAskedEmpty = false;

  /** The documents' table, quoted for SQL. */
  private readonly documentsTable: string;

  constructor(
    private readonly host: TextIndexHost,
    documentsTableName: string,
    private readonly tableName: string,
    readonly fields: readonly string[],
  ) {
    this.table = quoted(tableName);
    this.documentsTable = quoted(documentsTableName);
    this.spec = {
      table: tableName,
      fields: [...fields],
      documentsTable: documentsTableName,
      owedTable: owedTableOf(tableName),
    };
    this.owedTable = quoted(this.spec.owedTable);
    this.markSql = `INSERT INTO ${this.owedTable} (rowid, seq) VALUES (?, ?) ON CONFLICT (rowid) DO UPDATE SET seq = excluded.seq`;
    this.sample = new TrigramSample({
      rowidRange: () => {
        const range = this.host
          .statement(
            `SELECT (SELECT min(rowid) FROM ${this.documentsTable}) AS min, (SELECT max(rowid) FROM ${this.documentsTable}) AS max`,
          )
          .get() as { min: number | null; max: number | null };
        return range.min === null || range.max === null ? null : { min: range.min, max: range.max };
      },
      textsOf: (rowids) => {
        const columns = this.fields.map(quoted).join(', ');
        return this.host
          .textFile()
          .statement(`SELECT ${columns} FROM ${this.table} WHERE rowid IN (SELECT value FROM json_each(?))`)
          .raw()
          .all(JSON.stringify(rowids)) as string[][];
      },
    });
  }

  private readonly owedTable: string;
  /** Made once: every write of a document runs it. */
  private readonly markSql: string;
  /** Which trigrams of a needle are rare, guessed from a sample of the rows. */
  private readonly sample: TrigramSample;

  /**
   * Makes the owed table if missing and sends the thread what is owed. A text table missing from
   * the text file, or made for other fields, is made anew and every document is owed; so is one
   * left inside the read-model file by an earlier version, which is dropped.
   */
  ensure(): void {
    if (this.ensured) return;
    this.ensured = true;
    const text = this.host.textFile();
    text.writer.listen(this.tableName, {
      indexed: (rows) => this.indexed(rows),
      recreated: () => {
        this.tablesAsked = Math.max(0, this.tablesAsked - 1);
        if (this.tablesAsked === 0 && this.ensured) this.ready = true;
      },
      lost: () => {
        if (!this.ensured) return;
        // The requests it had not answered are lost with it.
        if (this.tablesAsked > 0) {
          this.tablesAsked = 0;
          this.askForTable(this.lastAskedEmpty);
        }
        if (this.pending.size > 0) text.writer.send({ op: 'index', index: this.spec });
      },
    });
    this.host.write(() => {
      this.host.db.exec(
        `CREATE TABLE IF NOT EXISTS ${this.owedTable} (rowid INTEGER PRIMARY KEY, seq INTEGER NOT NULL)`,
      );
      this.host.db.exec(
        `CREATE INDEX IF NOT EXISTS ${quoted(`${this.spec.owedTable}__seq`)} ON ${this.owedTable} (seq)`,
      );
      const inReadModels =
        this.host.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ? AND type = 'table'`).get(this.tableName) !==
        undefined;
      if (inReadModels) this.host.db.exec(`DROP TABLE ${this.table}`);
      this.ready = this.tablesAsked === 0 && text.columnsOf(this.tableName).join(',') === this.fields.join(',');
      this.sequence = Math.max(this.sequence, this.highestMark());
      if (!this.ready || inReadModels) {
        // Sequence numbers above every mark left: each row is owed once, after the new table.
        this.host.db
          .prepare(
            `INSERT INTO ${this.owedTable} (rowid, seq) SELECT rowid, ? + rowid FROM ${this.documentsTable} WHERE true ON CONFLICT (rowid) DO UPDATE SET seq = excluded.seq`,
          )
          .run(this.sequence);
        const maxRowid =
          (this.host.db.prepare(`SELECT max(rowid) FROM ${this.documentsTable}`).pluck().get() as number | null) ?? 0;
        this.sequence += maxRowid;
      }
      for (const [rowid, seq] of this.host.db
        .prepare(`SELECT rowid, seq FROM ${this.owedTable} WHERE rowid <> ?`)
        .raw()
        .all(SEQUENCE_ROW) as [number, number][])
        this.pending.set(rowid, seq);
      this.markedInTransaction = true;
    });
    // Asked even while another request is on its way: it may come before a drop of every table
    // (a rebuild), and this one after it. Asking again for a table that is there changes nothing.
    if (!this.ready) this.askForTable(false);
    // What earlier processes left owed is committed already; what was marked now, after the commit.
    // Every owed row, whatever its number: after a rollback (rolledBack), marks whose removal was
    // lost are owed again with numbers the thread has gone past.
    if (this.pending.size > 0) {
      text.writer.send({ op: 'index', index: this.spec, rescan: true });
      this.unsent = true;
    }
  }

  /**
   * False after a commit: another process (a second server on the DATA_DIR) may have marked rows
   * since. Mark numbers rise across processes: each transaction starts above the highest number
   * any has given (kept in the owed table's row 0, a rowid no document has), so no thread's
   * reading "past the last it saw" misses a mark, and no report of an old mark matches a new one.
   */
  private sequenceKnown = false;
  /** Marks were written in the open transaction: the highest number is saved before it commits. */
  private markedInTransaction = false;

  private askForTable(empty: boolean): void {
    this.tablesAsked++;
    this.lastAskedEmpty = empty;
    this.host.textFile().writer.send({ op: 'recreate', index: this.spec, empty });
  }

  /** Marks the rows owed (inside the caller's write transaction, which holds the file's write lock): written, or deleted. */
  private owe(rowids: readonly (number | bigint)[]): void {
    if (!this.sequenceKnown) {
      this.sequence = Math.max(this.sequence, this.highestMark());
      this.sequenceKnown = true;
    }
    const mark = this.markStatement();
    for (const rowid of rowids) {
      this.sequence++;
      mark.run(rowid, this.sequence);
      this.pending.set(Number(rowid), this.sequence);
    }
    if (rowids.length > 0) {
      this.unsent = true;
      this.markedInTransaction = true;
    }
  }

  /** The highest mark number in the file, this process's or another's (0 when none). */
  private highestMark(): number {
    return (this.host.statement(`SELECT max(seq) FROM ${this.owedTable}`).pluck().get() as number | null) ?? 0;
  }

  private markStatement(): Database.Statement {
    return this.host.statement(this.markSql);
  }

  /** The read models are about to commit: the highest mark number given goes with them. */
  beforeCommit(): void {
    if (!this.markedInTransaction || !this.ensured) return;
    this.markedInTransaction = false;
    this.markStatement().run(SEQUENCE_ROW, this.sequence);
  }

  /** The row's document was written (inside the caller's write transaction). */
  written(rowid: number | bigint): void {
    this.owe([rowid]);
  }

  /** The rows' documents were deleted (inside the caller's write transaction). */
  deleted(rowids: readonly (number | bigint)[]): void {
    this.owe(rowids);
  }

  /** The read models committed: the thread may index what was marked before. */
  committed(): void {
    this.sequenceKnown = false;
    if (!this.unsent) return;
    this.unsent = false;
    this.host.textFile().writer.send({ op: 'index', index: this.spec });
  }

  /** Callers waiting for nothing to be pending (settled()). */
  private settledWaiters: (() => void)[] = [];

  /**
   * Resolves once every row written so far has its text in the text file (its marks committed
   * first: the caller commits the read models). Tests and benchmarks wait so, to search the index
   * itself; a rebuild waits so before it reports done.
   */
  settled(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** The thread committed these rows' texts: a row not written again since is no longer owed. */
  private indexed(rows: readonly number[]): void {
    for (let i = 0; i < rows.length; i += 2) {
      if (this.pending.get(rows[i]) === rows[i + 1]) this.pending.delete(rows[i]);
    }
    if (this.pending.size === 0) for (const resolve of this.settledWaiters.splice(0)) resolve();
    if (!this.ensured || !this.host.db.open) return;
    // The marks as the thread saw them: a mark written again since has another number and stays.
    const unmark = this.host.statement(`DELETE FROM ${this.owedTable} WHERE rowid = ? AND seq = ?`);
    try {
      this.host.write(() => {
        for (let i = 0; i < rows.length; i += 2) unmark.run(rows[i], rows[i + 1]);
      });
    } catch (error) {
      // Not thrown: this runs on the thread's message, where nothing would catch it. The marks
      // stay in the file, where searches check their documents, and a start sends them to the
      // thread again. A full disk has been told to the store's watchers already.
      if (!isStorageFailure(error))
        process.emitWarning(`The text index could not clear its settled marks: ${errorMessage(error)}`);
    }
  }

  /**
   * The read models' open transaction was lost: its marks (and the owed table, if it made it)
   * are gone with the documents they were for. The next use reads what is owed from the file
   * again (ensure), as a start does.
   */
  rolledBack(): void {
    this.ensured = false;
    this.unsent = false;
    this.markedInTransaction = false;
    this.sequenceKnown = false;
    this.pending.clear();
    for (const resolve of this.settledWaiters.splice(0)) resolve();
    this.changed();
  }

  /** The collection's tables were dropped: the next use makes them again, and a new text table. */
  dropped(): void {
    this.ensured = false;
    this.ready = false;
    this.unsent = false;
    this.markedInTransaction = false;
    this.pending.clear();
    for (const resolve of this.settledWaiters.splice(0)) resolve();
    this.changed();
  }

  /** Drops the owed table (inside the caller's write transaction) and has the thread empty the text table. */
  drop(): void {
    this.host.write(() => this.host.db.exec(`DROP TABLE IF EXISTS ${this.owedTable}`));
    this.ready = false;
    this.askForTable(true);
  }

  /** Rowids holding each needle searched since the collection last changed (a list's page and its counts search alike). */
  private readonly found = new Map<string, number[]>();

  /** Forgets the remembered matches: the collection changed. */
  changed(): void {
    if (this.found.size > 0) this.found.clear();
  }

  /**
   * Whether the text table can answer: once this process's thread has made it, or while that is
   * asked, if it is there already with these fields. Another server's thread may have made it
   * and indexed posts into it, whose marks are then gone: they are found only there. Not while
   * the table is to be emptied (the collection was dropped) or every table dropped.
   */
  private answers(): boolean {
    if (this.ready) return true;
    if (this.lastAskedEmpty) return false;
    return this.host.textFile().columnsOf(this.tableName).join(',') === this.fields.join(',');
  }

  /**
   * The rowids the text table says hold the needle. Three code points or more: the trigram
   * index answers, the needle quoted as one phrase (its `"` doubled), so FTS5 syntax in it (`*`,
   * `AND`, `NEAR`, `:`) is plain text; past PHRASE_LIMIT, its beginning, checked whole by instr.
   * Fewer, or a needle holding a NUL: a scan of the stored lowercased texts with instr, which
   * compares characters exactly as `includes` does.
   */
  private indexMatches(needle: string): number[] {
    if (!this.answers()) return [];
    const text = this.host.textFile();
    const points = [...needle];
    const tests = this.fields.map((field) => `instr(${quoted(field)}, ?) > 0`).join(' OR ');
    const eachField = this.fields.map(() => needle);
    // FTS5's query parser ends a string at a NUL; instr compares past it, as `includes` does.
    if (points.length < TRIGRAM || needle.includes('\0')) {
      return text
        .statement(`SELECT rowid FROM ${this.table} WHERE ${tests}`)
        .pluck()
        .all(...eachField) as number[];
    }
    if (points.length <= PHRASE_LIMIT) {
      // Its rarest trigrams find a superset, checked whole by instr: cheaper than walking the
      // lists of its common trigrams too, as the phrase does (see TrigramSample).
      const driving = this.sample.drivingTrigrams(points);
      return driving
        ? (text
            .statement(`SELECT rowid FROM ${this.table} WHERE ${this.table} MATCH ? AND (${tests})`)
            .pluck()
            .all(driving.map(phrase).join(' AND '), ...eachField) as number[])
        : (text
            .statement(`SELECT rowid FROM ${this.table} WHERE ${this.table} MATCH ?`)
            .pluck()
            .all(phrase(needle)) as number[]);
    }
    // Rows holding the whole needle hold its beginning: the index finds those, instr keeps the rest.
    const head = points.slice(0, PHRASE_LIMIT).join('');
    return text
      .statement(`SELECT rowid FROM ${this.table} WHERE ${this.table} MATCH ? AND (${tests})`)
      .pluck()
      .all(phrase(head), ...eachField) as number[];
  }

  /** The rowids of the documents holding the text: the index's, with the pending rows checked on their documents. */
  private matches(text: string): number[] {
    const needle = text.toLowerCase();
    const known = this.found.get(needle);
    if (known) return known;
    // The marks as the file holds them, not only this process's: another process (the import
    // CLI, a second server) may have written posts whose text its thread has not indexed yet.
    // Read before the index: a mark is removed only after its text row has committed there.
    const owed = this.host
      .statement(
        `SELECT o.rowid, d.doc FROM ${this.owedTable} AS o LEFT JOIN ${this.documentsTable} AS d ON d.rowid = o.rowid WHERE o.rowid <> ${SEQUENCE_ROW}`,
      )
      .raw()
      .all() as [number, string | null][];
    let rowids = this.indexMatches(needle);
    if (owed.length > 0) {
      const unsure = new Set(owed.map(([rowid]) => rowid));
      rowids = rowids.filter((rowid) => !unsure.has(rowid));
      for (const [rowid, doc] of owed)
        if (doc !== null && containsText(parseStoredDocument<Record<string, unknown>>(doc), this.fields, text))
          rowids.push(rowid);
      rowids.sort((a, b) => a - b);
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
