/** What the text index thread (text-index-thread.ts) is started with. */
export interface TextIndexThreadData {
  /** The read-model file, read for the owed rows and their documents as committed. */
  readModelsFile: string;
  /** The text file the thread alone writes. */
  textFile: string;
}

/** The owed table's row holding the highest mark number given (document rowids start at 1): never a row to index. */
export const SEQUENCE_ROW = 0;

/** One collection's text index: its FTS5 table in the text file, and its tables in the read-model file. */
export interface TextIndexSpec {
  table: string;
  fields: string[];
  documentsTable: string;
  owedTable: string;
}

/** The main thread's requests, handled in the order sent. */
export type TextIndexRequest =
  /**
   * Make the table for these fields: when `empty`, anew (the collection was dropped); else only if
   * missing or made for other fields, so a second process starting at once keeps what the first
   * has indexed. Every document is owed meanwhile.
   */
  | { op: 'recreate'; index: TextIndexSpec; empty: boolean }
  /** Drop every table of the text file (the read models are being rebuilt). */
  | { op: 'drop-all' }
  /**
   * Index the owed rows committed since the last look. `durable` false: commit without waiting
   * for the disk (inside SqliteDocumentStore.deferSync, which syncs the file at its end).
   */
  /**
   * `rescan`: every owed row, not only those numbered above the last look. A row the thread
   * indexed keeps its old number in the owed table when the transaction removing its mark is lost
   * (a full disk): the owner reads it as owed again after the rollback, and the thread, past that
   * number, would never report it, so the owner's `settled()` would wait for ever.
   */
  | { op: 'index'; index: TextIndexSpec; durable?: boolean; rescan?: boolean }
  /** Finish what was asked before, then end. */
  | { op: 'close' };

export type TextIndexReply =
  | { op: 'recreated'; table: string }
  | { op: 'dropped-all' }
  /**
   * Rowid and owed sequence number pairs, flat: their text rows are committed. An index request
   * is answered by one or more, the last of them marked.
   */
  | { op: 'indexed'; table: string; rows: number[]; last: boolean }
  /** A request failed, with this message: the thread does nothing more, and is ended. */
  | { op: 'failed'; message: string };
