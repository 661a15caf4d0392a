import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { PreparedStatements } from '../prepared-statements.js';
import { quotedName as quoted } from './sql-paths.js';
import { searchableText } from './text-search.js';
import {
  SEQUENCE_ROW,
  type TextIndexReply,
  type TextIndexRequest,
  type TextIndexSpec,
  type TextIndexThreadData,
} from './text-index-messages.js';
import { errorMessage } from '../../infra/errors.js';
import { parseStoredDocument } from './stored-document.js';

/**
 * The read models' text index writer: a thread of its own, so the FTS5 trigram rows of a post
 * (most of a create's cost on the main thread, and of a replay's) are built beside the
 * requests rather than among them. It owns the only writing connection of the text file and
 * reads the read-model file's committed state: a collection's owed table lists the rowids
 * whose text may be missing or stale, each with the sequence number of its last write. A
 * request to index reads the owed rows past the last it saw, each with its document as
 * committed (none: it was deleted), replaces their text rows, commits, and answers with the
 * (rowid, sequence) pairs done, which the main thread then removes from the owed table.
 */
const port = parentPort;
if (!port) throw new Error('text-index-thread.ts runs as a worker thread.');
// Handed over by this process's TextIndexWriter, not read from outside it: taken as its type.
const data = workerData as TextIndexThreadData;

/** Owed rows indexed per transaction: bounded, so an answer and its pairs stay small. */
const INDEX_BATCH = 1000;

const readModels = new Database(data.readModelsFile, { readonly: true, fileMustExist: true });
readModels.pragma('busy_timeout = 5000');
const text = new Database(data.textFile);
text.pragma('journal_mode = WAL');
// The main thread forgets an owed row once told it is indexed: a text commit lost to a power
// cut after that would leave the row's text stale for good, so each commit is made durable
// (but inside a deferSync, whose marker has a torn file started anew: setDurable).
text.pragma('synchronous = FULL');
let durable = true;

function setDurable(wanted: boolean): void {
  if (wanted === durable) return;
  text.pragma(`synchronous = ${wanted ? 'FULL' : 'OFF'}`);
  durable = wanted;
}
text.pragma('busy_timeout = 5000');
text.pragma('cache_size = -4000');
const readStatements = new PreparedStatements(readModels);
const textStatements = new PreparedStatements(text);

/** The highest owed sequence number indexed, by text table. */
const lastSeen = new Map<string, number>();

/**
 * The text table for the fields, in one transaction (the main thread's reads see the old table
 * or the new one): anew when `empty`, else only if missing or made for other fields. The look
 * and the make are under one write lock: another server's thread may make the table, and index
 * posts into it, between the two; the make then failed on the table there, or dropped rows whose
 * marks were gone.
 */
function recreate(index: TextIndexSpec, empty: boolean): void {
  const columns = index.fields.map(quoted).join(', ');
  const made = text
    .transaction(() => {
      const current = text.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(index.table) as string[];
      if (!empty && current.join(',') === index.fields.join(',')) return false;
      text.exec(`DROP TABLE IF EXISTS ${quoted(index.table)}`);
      text.exec(
        `CREATE VIRTUAL TABLE ${quoted(index.table)} USING fts5(${columns}, tokenize = 'trigram case_sensitive 1')`,
      );
      return true;
    })
    .immediate();
  if (!made) return;
  textStatements.clear();
  lastSeen.delete(index.table);
}

function dropAll(): void {
  // Virtual tables first: dropping one drops its shadow tables, gone by the time the list reaches them.
  const tables = text
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY substr(sql, 1, 20) = 'CREATE VIRTUAL TABLE' DESC`,
    )
    .pluck()
    .all() as string[];
  text.transaction(() => {
    for (const table of tables) text.exec(`DROP TABLE IF EXISTS ${quoted(table)}`);
  })();
  textStatements.clear();
  lastSeen.clear();
}

interface OwedRow {
  rowid: number;
  seq: number;
  doc: string | null;
}

/** Indexes the owed rows committed since the last look, a batch per transaction. */
function indexOwed(index: TextIndexSpec): void {
  const owed = readStatements.get(
    `SELECT o.rowid AS rowid, o.seq AS seq, d.doc AS doc FROM ${quoted(index.owedTable)} AS o ` +
      `LEFT JOIN ${quoted(index.documentsTable)} AS d ON d.rowid = o.rowid WHERE o.seq > ? AND o.rowid <> ${SEQUENCE_ROW} ORDER BY o.seq LIMIT ${INDEX_BATCH}`,
  );
  const remove = textStatements.get(`DELETE FROM ${quoted(index.table)} WHERE rowid = ?`);
  const insert = textStatements.get(
    `INSERT INTO ${quoted(index.table)} (rowid, ${index.fields.map(quoted).join(', ')}) VALUES (?, ${index.fields.map(() => '?').join(', ')})`,
  );
  for (;;) {
    const rows = owed.all(lastSeen.get(index.table) ?? 0) as OwedRow[];
    const done: number[] = [];
    text.transaction(() => {
      for (const row of rows) {
        remove.run(row.rowid);
        if (row.doc !== null) {
          const doc = parseStoredDocument<Record<string, unknown>>(row.doc);
          insert.run(row.rowid, ...index.fields.map((field) => searchableText(doc[field])));
        }
        done.push(row.rowid, row.seq);
      }
    })();
    if (rows.length > 0) lastSeen.set(index.table, rows[rows.length - 1].seq);
    const last = rows.length < INDEX_BATCH;
    port?.postMessage({ op: 'indexed', table: index.table, rows: done, last } satisfies TextIndexReply);
    if (last) return;
  }
}

/** A table dropped meanwhile (a collection dropped, the read models rebuilt) has nothing owed left. */
function isMissingTable(error: unknown): boolean {
  return error instanceof Database.SqliteError && /no such table/.test(error.message);
}

function handle(request: TextIndexRequest): void {
  switch (request.op) {
    case 'recreate':
      recreate(request.index, request.empty);
      port?.postMessage({ op: 'recreated', table: request.index.table } satisfies TextIndexReply);
      return;
    case 'drop-all':
      dropAll();
      port?.postMessage({ op: 'dropped-all' } satisfies TextIndexReply);
      return;
    case 'index':
      setDurable(request.durable !== false);
      if (request.rescan) lastSeen.delete(request.index.table);
      try {
        indexOwed(request.index);
      } catch (error) {
        if (!isMissingTable(error)) throw error;
        port?.postMessage({ op: 'indexed', table: request.index.table, rows: [], last: true } satisfies TextIndexReply);
      }
      return;
    case 'close':
      readModels.close();
      text.close();
      port?.close();
  }
}

/** Set once a request failed: the main thread ends this thread, and nothing more is done meanwhile. */
let failed = false;

port.on('message', (request: TextIndexRequest) => {
  if (failed) return;
  try {
    handle(request);
  } catch (error) {
    // Reported as a message: an error thrown out of a thread reaches the main thread without
    // its message (a SqliteError arrives as { code }).
    failed = true;
    port.postMessage({
      op: 'failed',
      message: errorMessage(error),
    } satisfies TextIndexReply);
  }
});
