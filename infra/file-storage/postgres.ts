import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import type { PoolClient, QueryResult } from 'pg';
import { LocalCopies } from './local-copies.js';
import { Measure } from './measure.js';
import { partialUploadName, type LeftoverOptions } from './partial-uploads.js';
import {
  checkedName,
  STORED_NAME,
  type ByteRange,
  type FileArea,
  type FileAreas,
  type FileStorage,
  type PendingFile,
  type StoredFileEntry,
  type StoredFileInfo,
} from './port.js';
import { quoteIdentifier } from '../postgres-errors.js';
import { columnReaders, createTablesOnce, inTransaction, isRecord, translatorFor } from '../postgres-adapter.js';
import { ChunkWriter, chunksOfRange, notStored, NOW_MS, removeLeftoverPuts } from '../postgres-chunks.js';

/** What a PostgreSQL outage is reported as (503, and FILES_URL named at start: infra/select.ts). */
export const FILE_STORAGE_DEPENDENCY = 'file storage';
/** The class of this adapter's advisory lock (the other key is the schema's hash). */
const LOCK_CLASS = 0x66696c65; // 'file'
/** Bytes per chunk row: a file of n bytes is ceil(n / CHUNK_BYTES) rows, all full but the last. */
export const CHUNK_BYTES = 256 * 1024;
/**
 * A removed file's chunks are kept this long, so a reader under way (a download, a backup)
 * reads to its end as it would from a file unlinked on disk; then any removal deletes them.
 */
export const REMOVED_KEPT_MS = 60 * 60 * 1000;

export interface PostgresFileAreasOptions {
  /** Where local copies are made (DATA_DIR/cache/files). */
  copiesDir: string;
  /** The schema holding the tables (created on first use); 'public' by default. Tests use one each. */
  schema?: string;
  /** Pool size; 10 by default. */
  maxConnections?: number;
  /** How long a removed file's chunks stay readable; REMOVED_KEPT_MS by default. */
  removedKeptMs?: number;
}

// ---- rows read back are checked, not cast ----

const read = columnReaders('file storage');
const { integer, text } = read;

// ---- driver errors translated at the boundary ----

const translate = translatorFor(FILE_STORAGE_DEPENDENCY);

/**
 * Files in PostgreSQL, so app servers share them with no shared disk: a row per file
 * (`stored_files`: area, name, size, the chunk size it was cut by, the upload it belongs to
 * until committed, when it was written and removed) and its bytes in rows of 256 KiB
 * (`stored_file_chunks`, bytea stored uncompressed). A file is received chunk by chunk, each its
 * own insert, under a pending row no reader sees; commit makes it visible in one update. A read
 * fetches the chunks of its range a few at a time, so neither side ever holds a whole file.
 */
export class PostgresFileAreas implements FileAreas {
  readonly kind = 'postgres';
  readonly pool: pg.Pool;
  readonly files: string;
  readonly chunks: string;
  private readonly schema: string;
  private readonly removedKeptMs: number;
  private readonly copies: LocalCopies;
  private readonly areas = new Map<FileArea, PostgresFileStorage>();
  private ready: Promise<void> | null = null;

  constructor(connectionString: string, options: PostgresFileAreasOptions) {
    this.schema = options.schema ?? 'public';
    this.files = `${quoteIdentifier(this.schema)}.stored_files`;
    this.chunks = `${quoteIdentifier(this.schema)}.stored_file_chunks`;
    this.removedKeptMs = options.removedKeptMs ?? REMOVED_KEPT_MS;
    this.copies = new LocalCopies(options.copiesDir);
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10, connectionTimeoutMillis: 5000 });
    // An idle connection the server dropped: the pool discards it; the next query connects again.
    this.pool.on('error', () => undefined);
  }

  /**
   * Creates the schema and tables unless they are there (once across processes, under a lock).
   * Tables already made are left untouched: no start takes a lock on them, and a user that may
   * not create anything (an administrator made the tables) starts too.
   */
  schemaReady(): Promise<void> {
    this.ready ??= this.transaction(async (client) => {
      const tables: [string, string] = [this.files, this.chunks];
      await createTablesOnce(client, { lockClass: LOCK_CLASS, schema: this.schema, tables }, async () => {
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.files} (
          area text NOT NULL,
          name text NOT NULL,
          size bigint NOT NULL DEFAULT 0,
          chunk_bytes integer NOT NULL,
          upload text,
          modified_at bigint NOT NULL,
          removed_at bigint,
          PRIMARY KEY (area, name)
        )`);
        await client.query(
          `CREATE INDEX IF NOT EXISTS stored_files_removed ON ${this.files} (removed_at) WHERE removed_at IS NOT NULL`,
        );
        await client.query(
          `CREATE INDEX IF NOT EXISTS stored_files_uploads ON ${this.files} (modified_at) WHERE upload IS NOT NULL`,
        );
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.chunks} (
          area text NOT NULL,
          name text NOT NULL,
          n integer NOT NULL,
          data bytea NOT NULL,
          PRIMARY KEY (area, name, n),
          FOREIGN KEY (area, name) REFERENCES ${this.files} ON DELETE CASCADE
        )`);
        // Uncompressed: stored files are mostly compressed already, and a range then reads only its part.
        await client.query(`ALTER TABLE ${this.chunks} ALTER COLUMN data SET STORAGE EXTERNAL`);
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
  async query(sql: string, values: unknown[] = []): Promise<QueryResult> {
    try {
      await this.schemaReady();
      return await this.pool.query(sql, values);
    } catch (error) {
      throw translate(error);
    }
  }

  area(area: FileArea): PostgresFileStorage {
    let storage = this.areas.get(area);
    if (!storage) {
      storage = new PostgresFileStorage(this, area, this.copies, this.removedKeptMs);
      this.areas.set(area, storage);
    }
    return storage;
  }

  /**
   * Pending uploads no live process owns (isLeftover, by the owner each was tagged with and its
   * last write), the chunks of files removed longer ago than REMOVED_KEPT_MS, and partial local
   * copies. Answers the uploads' and copies' names.
   */
  async removeLeftoverUploads(options: LeftoverOptions): Promise<string[]> {
    const sql = (statement: string, values: unknown[]) => this.query(statement, values);
    const removed = await removeLeftoverPuts(sql, { table: this.files, keyColumns: ['area', 'name'], read }, options);
    await this.query(`DELETE FROM ${this.files} WHERE removed_at < ${NOW_MS} - $1`, [this.removedKeptMs]);
    removed.push(...(await this.copies.removeLeftovers(options)));
    return removed;
  }

  async putFile(area: FileArea, storedName: string, source: Readable): Promise<void> {
    // A file of that name removed before (a restore tried again) gives its row up at once.
    await this.query(`DELETE FROM ${this.files} WHERE area = $1 AND name = $2 AND removed_at IS NOT NULL`, [
      area,
      checkedName(storedName),
    ]);
    const pending = await this.area(area).receiveAs(storedName, source);
    await pending.commit();
  }

  async check(): Promise<void> {
    await this.query(`SELECT 1 FROM ${this.files} LIMIT 1`);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** One area of PostgresFileAreas: its rows are those with `area` = its name. */
export class PostgresFileStorage implements FileStorage {
  constructor(
    private readonly db: PostgresFileAreas,
    private readonly area: FileArea,
    private readonly copies: LocalCopies,
    private readonly removedKeptMs: number,
  ) {}

  receive(source: Readable & { truncated?: boolean }, extension: string): Promise<PendingFile> {
    return this.receiveAs(checkedName(extension ? `${randomUUID()}.${extension}` : randomUUID()), source);
  }

  /** receive, under a given name (PostgresFileAreas.putFile): refused if a row of that name is there. */
  async receiveAs(storedName: string, source: Readable & { truncated?: boolean }): Promise<PendingFile> {
    // The owner's host and process, as a partial file on disk is named: a start tells its own leftovers.
    const upload = partialUploadName();
    const { files, chunks } = this.db;
    const key = [this.area, checkedName(storedName)];
    await this.db.query(
      `INSERT INTO ${files} (area, name, chunk_bytes, upload, modified_at) VALUES ($1, $2, $3, $4, ${NOW_MS})`,
      [...key, CHUNK_BYTES, upload],
    );
    const discard = async () => {
      // Its chunks go with it (ON DELETE CASCADE). A committed file is not the upload's to delete.
      await this.db.query(`DELETE FROM ${files} WHERE area = $1 AND name = $2 AND upload = $3`, [...key, upload]);
    };
    const measure = new Measure();
    const sink = new ChunkWriter(CHUNK_BYTES, async (n, data) => {
      await this.db.query(`INSERT INTO ${chunks} (area, name, n, data) VALUES ($1, $2, $3, $4)`, [...key, n, data]);
    });
    try {
      await pipeline(source, measure, sink);
      await this.db.query(`UPDATE ${files} SET size = $3, modified_at = ${NOW_MS} WHERE area = $1 AND name = $2`, [
        ...key,
        measure.size,
      ]);
    } catch (error) {
      await discard().catch(() => undefined);
      throw error;
    }
    return {
      storedName,
      size: measure.size,
      sha256: measure.hash.digest('hex'),
      head: measure.head(),
      truncated: source.truncated === true,
      commit: async () => {
        const { rowCount } = await this.db.query(
          `UPDATE ${files} SET upload = NULL, modified_at = ${NOW_MS} WHERE area = $1 AND name = $2 AND upload = $3`,
          [...key, upload],
        );
        if (rowCount !== 1)
          throw new Error(`The upload of ${storedName} is gone: discarded, or removed as a leftover.`);
      },
      discard,
    };
  }

  /** The visible (committed, not removed) file's row. */
  private async visible(storedName: string): Promise<{ size: number; chunkBytes: number } | null> {
    const { rows } = await this.db.query(
      `SELECT size, chunk_bytes FROM ${this.db.files}
       WHERE area = $1 AND name = $2 AND upload IS NULL AND removed_at IS NULL`,
      [this.area, storedName],
    );
    const row: unknown = rows[0];
    if (!isRecord(row)) return null;
    return { size: integer(row.size, 'size'), chunkBytes: integer(row.chunk_bytes, 'chunk_bytes') };
  }

  async stat(storedName: string): Promise<StoredFileInfo | null> {
    if (!STORED_NAME.test(storedName)) return null;
    const file = await this.visible(storedName);
    return file ? { size: file.size } : null;
  }

  openRead(storedName: string, range?: ByteRange): Readable {
    const name = checkedName(storedName);
    return Readable.from(this.chunksOf(name, range), { objectMode: false });
  }

  /** The bytes of the range (postgres-chunks.ts): fetched as the reader takes them. */
  private async *chunksOf(storedName: string, range: ByteRange | undefined): AsyncGenerator<Buffer> {
    const file = await this.visible(storedName);
    if (!file) throw notStored(`file ${storedName}`);
    const rows = {
      query: (sql: string, values: unknown[]) => this.db.query(sql, values),
      table: this.db.chunks,
      keyColumns: ['area', 'name'],
      key: [this.area, storedName],
    };
    // Chunks gone: the file was removed longer ago than REMOVED_KEPT_MS while this read went on.
    yield* chunksOfRange(rows, file, range, () => notStored(`file ${storedName}`));
  }

  async remove(storedName: string): Promise<void> {
    const name = checkedName(storedName);
    // Hidden at once; its chunks stay for the reads under way (REMOVED_KEPT_MS), then go with
    // the next removal of this area, or the next start's sweep.
    await this.db.query(
      `UPDATE ${this.db.files} SET removed_at = ${NOW_MS}
       WHERE area = $1 AND name = $2 AND upload IS NULL AND removed_at IS NULL`,
      [this.area, name],
    );
    await this.copies.drop(this.area, name);
    await this.db.query(`DELETE FROM ${this.db.files} WHERE area = $1 AND removed_at < ${NOW_MS} - $2`, [
      this.area,
      this.removedKeptMs,
    ]);
  }

  /** A copy in DATA_DIR/cache/files, made on first use; dropped when its file is found removed. */
  async localPath(storedName: string): Promise<string | null> {
    if (!STORED_NAME.test(storedName)) return null;
    if (!(await this.visible(storedName))) {
      // Removed, maybe by another server: its copy here goes too.
      await this.copies.drop(this.area, storedName);
      return null;
    }
    return this.copies.copyOf(this.area, storedName, () => this.openRead(storedName));
  }

  async list(): Promise<StoredFileEntry[]> {
    const { rows } = await this.db.query(
      `SELECT name, modified_at FROM ${this.db.files}
       WHERE area = $1 AND upload IS NULL AND removed_at IS NULL ORDER BY name`,
      [this.area],
    );
    const listed: StoredFileEntry[] = [];
    for (const row of rows) {
      if (!isRecord(row)) continue;
      const storedName = text(row.name, 'name');
      if (STORED_NAME.test(storedName))
        listed.push({ storedName, modifiedAt: integer(row.modified_at, 'modified_at') });
    }
    return listed;
  }
}
