import { Writable } from 'node:stream';
import type { QueryResult } from 'pg';
import { isLeftover, type LeftoverOptions } from './file-storage/partial-uploads.js';
import { isRecord, type ColumnReaders } from './postgres-adapter.js';

/**
 * What the PostgreSQL adapters that keep files as chunk rows (file storage, backup archives)
 * share: cutting a stream into rows as it arrives, and reading a byte range back a few rows at a
 * time, so neither side ever holds a whole file.
 */

/** The database's clock in milliseconds: every server of a deployment reads the same one. */
export const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Chunk rows read per query: at most 1 MiB held while a reader takes it (rows of 256 KiB). */
const CHUNKS_PER_READ = 4;

/** What a read reports for a file that is not (or no more) stored: fs's code, as a local adapter's. */
export function notStored(what: string): Error {
  return Object.assign(new Error(`No stored ${what}.`), { code: 'ENOENT' });
}

/**
 * Cuts what is written into rows of `chunkBytes` and hands each to `insert` once full (the last
 * one at the end), waiting for it before taking more: at most one row's bytes are held, whatever
 * the file's size.
 */
export class ChunkWriter extends Writable {
  private parts: Buffer[] = [];
  private held = 0;
  private next = 0;

  constructor(
    private readonly chunkBytes: number,
    private readonly insert: (n: number, data: Buffer) => Promise<void>,
  ) {
    super();
  }

  /** The first `length` bytes held, as one buffer; the rest stay held. */
  private take(length: number): Buffer {
    const taken: Buffer[] = [];
    let needed = length;
    while (needed > 0) {
      const part = this.parts[0];
      if (part.length <= needed) {
        taken.push(part);
        this.parts.shift();
        needed -= part.length;
      } else {
        taken.push(part.subarray(0, needed));
        this.parts[0] = part.subarray(needed);
        needed = 0;
      }
    }
    this.held -= length;
    return taken.length === 1 ? taken[0] : Buffer.concat(taken, length);
  }

  private async flush(all: boolean): Promise<void> {
    while (this.held >= this.chunkBytes || (all && this.held > 0)) {
      await this.insert(this.next++, this.take(Math.min(this.held, this.chunkBytes)));
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.parts.push(chunk);
    this.held += chunk.length;
    this.flush(false).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.flush(true).then(() => done(), done);
  }
}

/** Where one file's chunk rows are: the table (quoted, schema-qualified) and the file's key columns' condition. */
export interface ChunkRows {
  /** One statement, driver errors translated (the adapter's). */
  query(sql: string, values: unknown[]): Promise<QueryResult>;
  table: string;
  /** The key columns naming the file, matched in this order against `key` (`area`, `name`). */
  keyColumns: readonly string[];
  key: readonly unknown[];
}

/**
 * The bytes of `range` (inclusive offsets; the whole file without one) of a file of `size` bytes
 * cut into rows of `chunkBytes`, row by row from the one holding its first byte, a few rows per
 * query; the first and last rows cut to the range by the database, so a range reads only its own
 * bytes. Fetched as the reader takes them. Rows missing (the file's rows deleted meanwhile)
 * throw `missing()`.
 */
export async function* chunksOfRange(
  rows: ChunkRows,
  file: { size: number; chunkBytes: number },
  range: { start: number; end: number } | undefined,
  missing: () => Error,
): AsyncGenerator<Buffer> {
  const start = range?.start ?? 0;
  const end = Math.min(range?.end ?? file.size - 1, file.size - 1);
  if (start > end) return;
  const size = file.chunkBytes;
  const first = Math.floor(start / size);
  const last = Math.floor(end / size);
  const keys = rows.keyColumns.map((column, i) => `${column} = $${i + 1}`).join(' AND ');
  const k = rows.keyColumns.length;
  const p = (n: number) => `$${k + n}`;
  for (let from = first; from <= last; from += CHUNKS_PER_READ) {
    const to = Math.min(last, from + CHUNKS_PER_READ - 1);
    const result = await rows.query(
      `SELECT n, substring(data FROM (CASE WHEN n = ${p(1)} THEN ${p(3)}::int ELSE 0 END) + 1
                 FOR (CASE WHEN n = ${p(2)} THEN ${p(4)}::int + 1 ELSE ${p(5)}::int END) - (CASE WHEN n = ${p(1)} THEN ${p(3)}::int ELSE 0 END)) AS data
               FROM ${rows.table} WHERE ${keys} AND n BETWEEN ${p(6)} AND ${p(7)} ORDER BY n`,
      [...rows.key, first, last, start % size, end % size, size, from, to],
    );
    let expected = from;
    for (const row of result.rows) {
      if (!isRecord(row) || row.n !== expected || !Buffer.isBuffer(row.data)) break;
      expected += 1;
      yield row.data;
    }
    if (expected !== to + 1) throw missing();
  }
}

/**
 * Deletes the rows of `table` (a file's row, its chunks going with it) still pending, `upload`
 * set, that no live process owns (isLeftover, by the host and pid each upload names and its last
 * write). The key columns name a row. Answers the uploads' names.
 */
export async function removeLeftoverPuts(
  query: (sql: string, values: unknown[]) => Promise<QueryResult>,
  { table, keyColumns, read }: { table: string; keyColumns: readonly string[]; read: ColumnReaders },
  options: LeftoverOptions,
): Promise<string[]> {
  const removed: string[] = [];
  const { rows } = await query(
    `SELECT ${keyColumns.join(', ')}, upload, modified_at FROM ${table} WHERE upload IS NOT NULL`,
    [],
  );
  const keys = keyColumns.map((column, i) => `${column} = $${i + 1}`).join(' AND ');
  for (const row of rows) {
    if (!isRecord(row)) continue;
    const upload = read.text(row.upload, 'upload');
    if (!isLeftover(upload, read.integer(row.modified_at, 'modified_at'), options)) continue;
    await query(`DELETE FROM ${table} WHERE ${keys} AND upload = $${keyColumns.length + 1}`, [
      ...keyColumns.map((column) => row[column]),
      upload,
    ]);
    removed.push(upload);
  }
  return removed;
}
