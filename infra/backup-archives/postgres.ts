import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import type { PoolClient, QueryResult } from 'pg';
import type { ByteRange } from '../file-storage/port.js';
import { Measure } from '../file-storage/measure.js';
import { partialUploadName, type LeftoverOptions } from '../file-storage/partial-uploads.js';
import { CHUNK_BYTES, REMOVED_KEPT_MS } from '../file-storage/postgres.js';
import { quoteIdentifier } from '../postgres-errors.js';
import { columnReaders, createTablesOnce, inTransaction, isRecord, translatorFor } from '../postgres-adapter.js';
import { ChunkWriter, chunksOfRange, notStored, NOW_MS, removeLeftoverPuts } from '../postgres-chunks.js';
import { archiveFileFor, localFilesOf } from './paths.js';
import {
  checkedArchiveName,
  isArchiveName,
  type BackupArchives,
  type StagedArchive,
  type StoredArchive,
} from './port.js';

/** What an outage is reported as (503, FILES_URL named at start: infra/select.ts): the archives are the file storage's database. */
export const BACKUP_ARCHIVES_DEPENDENCY = 'file storage';
/** The class of this adapter's advisory lock (the other key is the schema's hash). */
const LOCK_CLASS = 0x62616b75; // 'baku'

export interface PostgresBackupArchivesOptions {
  /** DATA_DIR: archives are staged in its backups folder before they are put here. */
  dataDir: string;
  /** What `o:path` names the store by (backupArchivesLocation): no credentials. */
  location: string;
  /** The schema holding the tables (created on first use); 'public' by default. */
  schema?: string;
  /** Pool size; 4 by default (one archive job at a time, and downloads). */
  maxConnections?: number;
  /** How long a removed archive's chunks stay readable; the file storage's REMOVED_KEPT_MS by default. */
  removedKeptMs?: number;
}

const read = columnReaders('backup archives');
const { integer, text } = read;
const translate = translatorFor(BACKUP_ARCHIVES_DEPENDENCY);

/**
 * `postgresql://host:port/database?schema=name`, the store as `o:path` names it: the URL's host,
 * port (5432 when it gives none) and database, without its user, password or options.
 */
export function backupArchivesLocation(connectionString: string, schema: string | undefined): string {
  const parsed = URL.canParse(connectionString) ? new URL(connectionString) : null;
  const host = parsed?.hostname ?? 'localhost';
  const port = parsed?.port || '5432';
  const database = parsed ? parsed.pathname.replace(/^\//, '') : '';
  return `postgresql://${host}:${port}/${database}?schema=${schema ?? 'public'}`;
}

/**
 * Archives in PostgreSQL (FILES_URL's database and schema), so every app server reads and removes
 * the same ones: a row per archive (`backup_archives`: name, size, the chunk size it was cut by,
 * the put it belongs to until committed, when it was written and removed) and its bytes in rows
 * of 256 KiB (`backup_archive_chunks`), cut and read as the file storage's (postgres-chunks.ts).
 * Tables of their own: a restore's check for an empty file storage, and a listing of the stored
 * files, never see an archive.
 */
export class PostgresBackupArchives implements BackupArchives {
  readonly kind = 'postgresql';
  readonly pool: pg.Pool;
  /** The archives' table (quoted, schema-qualified). */
  readonly table: string;
  private readonly archives: string;
  private readonly chunks: string;
  private readonly schema: string;
  private readonly dataDir: string;
  private readonly store: string;
  private readonly removedKeptMs: number;
  private ready: Promise<void> | null = null;

  constructor(connectionString: string, options: PostgresBackupArchivesOptions) {
    this.schema = options.schema ?? 'public';
    this.archives = `${quoteIdentifier(this.schema)}.backup_archives`;
    this.table = this.archives;
    this.chunks = `${quoteIdentifier(this.schema)}.backup_archive_chunks`;
    this.dataDir = options.dataDir;
    this.store = options.location;
    this.removedKeptMs = options.removedKeptMs ?? REMOVED_KEPT_MS;
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 4, connectionTimeoutMillis: 5000 });
    // An idle connection the server dropped: the pool discards it; the next query connects again.
    this.pool.on('error', () => undefined);
  }

  /** Creates the schema and tables unless they are there (once across processes, under a lock); existing ones are left untouched. */
  schemaReady(): Promise<void> {
    this.ready ??= inTransaction(this.pool, translate, async (client: PoolClient) => {
      const tables: [string, string] = [this.archives, this.chunks];
      await createTablesOnce(client, { lockClass: LOCK_CLASS, schema: this.schema, tables }, async () => {
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.archives} (
          name text PRIMARY KEY,
          size bigint NOT NULL DEFAULT 0,
          chunk_bytes integer NOT NULL,
          upload text,
          modified_at bigint NOT NULL,
          removed_at bigint
        )`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.chunks} (
          name text NOT NULL REFERENCES ${this.archives} ON DELETE CASCADE,
          n integer NOT NULL,
          data bytea NOT NULL,
          PRIMARY KEY (name, n)
        )`);
        // Uncompressed: a zip is compressed already, and a range then reads only its part.
        await client.query(`ALTER TABLE ${this.chunks} ALTER COLUMN data SET STORAGE EXTERNAL`);
      });
    }).catch((error: unknown) => {
      this.ready = null; // tried again by the next call
      throw error;
    });
    return this.ready;
  }

  /** One statement, once the tables exist; driver errors translated. */
  private async query(sql: string, values: unknown[] = []): Promise<QueryResult> {
    try {
      await this.schemaReady();
      return await this.pool.query(sql, values);
    } catch (error) {
      throw translate(error);
    }
  }

  stagingFile(filename: string): string {
    return archiveFileFor(this.dataDir, checkedArchiveName(filename));
  }

  location(filename: string): string {
    return `${this.store}#backups/${filename}`;
  }

  async put(filename: string, staged: StagedArchive): Promise<void> {
    const name = checkedArchiveName(filename);
    // The owner's host and process, as a partial upload is named: a start tells its own leftovers.
    const upload = partialUploadName();
    // An archive of that name removed before (a job tried again) gives its row up at once.
    await this.query(`DELETE FROM ${this.archives} WHERE name = $1 AND removed_at IS NOT NULL`, [name]);
    await this.query(
      `INSERT INTO ${this.archives} (name, chunk_bytes, upload, modified_at) VALUES ($1, $2, $3, ${NOW_MS})`,
      [name, CHUNK_BYTES, upload],
    );
    try {
      const measure = new Measure();
      const sink = new ChunkWriter(CHUNK_BYTES, async (n, data) => {
        await this.query(`INSERT INTO ${this.chunks} (name, n, data) VALUES ($1, $2, $3)`, [name, n, data]);
      });
      await pipeline(createReadStream(staged.path, { highWaterMark: CHUNK_BYTES }), measure, sink);
      const sha256 = measure.hash.digest('hex');
      if (measure.size !== staged.size || sha256 !== staged.sha256)
        throw new Error(`The staged archive ${name} changed after it was written: not stored.`);
      const { rowCount } = await this.query(
        `UPDATE ${this.archives} SET size = $2, upload = NULL, modified_at = ${NOW_MS} WHERE name = $1 AND upload = $3`,
        [name, measure.size, upload],
      );
      if (rowCount !== 1) throw new Error(`The put of ${name} is gone: removed as a leftover.`);
    } catch (error) {
      // Its chunks go with it (ON DELETE CASCADE).
      await this.query(`DELETE FROM ${this.archives} WHERE name = $1 AND upload = $2`, [name, upload]).catch(
        () => undefined,
      );
      throw error;
    }
    await this.removeStaged(name);
  }

  /** The archive's staging file and checksum file on this machine, if any. */
  private async removeStaged(filename: string): Promise<void> {
    for (const path of localFilesOf(this.stagingFile(filename))) await rm(path, { force: true });
  }

  /** The visible (committed, not removed) archive's row. */
  private async visible(filename: string): Promise<{ size: number; chunkBytes: number } | null> {
    const { rows } = await this.query(
      `SELECT size, chunk_bytes FROM ${this.archives} WHERE name = $1 AND upload IS NULL AND removed_at IS NULL`,
      [filename],
    );
    const row: unknown = rows[0];
    if (!isRecord(row)) return null;
    return { size: integer(row.size, 'size'), chunkBytes: integer(row.chunk_bytes, 'chunk_bytes') };
  }

  async stat(filename: string): Promise<{ size: number } | null> {
    if (!isArchiveName(filename)) return null;
    const row = await this.visible(filename);
    return row ? { size: row.size } : null;
  }

  openRead(filename: string, range?: ByteRange): Readable {
    return Readable.from(this.chunksOf(checkedArchiveName(filename), range), { objectMode: false });
  }

  private async *chunksOf(filename: string, range: ByteRange | undefined): AsyncGenerator<Buffer> {
    const file = await this.visible(filename);
    if (!file) throw notStored(`archive ${filename}`);
    const rows = {
      query: (sql: string, values: unknown[]) => this.query(sql, values),
      table: this.chunks,
      keyColumns: ['name'],
      key: [filename],
    };
    // Chunks gone: the archive was removed longer ago than REMOVED_KEPT_MS while this read went on.
    yield* chunksOfRange(rows, file, range, () => notStored(`archive ${filename}`));
  }

  async remove(filename: string): Promise<void> {
    const name = checkedArchiveName(filename);
    // Hidden at once; its chunks stay for the downloads under way, then go with the next removal.
    await this.query(
      `UPDATE ${this.archives} SET removed_at = ${NOW_MS} WHERE name = $1 AND upload IS NULL AND removed_at IS NULL`,
      [name],
    );
    await this.query(`DELETE FROM ${this.archives} WHERE removed_at < ${NOW_MS} - $1`, [this.removedKeptMs]);
    await this.removeStaged(name);
  }

  async list(): Promise<StoredArchive[]> {
    const { rows } = await this.query(
      `SELECT name, size, modified_at FROM ${this.archives} WHERE upload IS NULL AND removed_at IS NULL ORDER BY name`,
    );
    const listed: StoredArchive[] = [];
    for (const row of rows) {
      if (!isRecord(row)) continue;
      listed.push({
        filename: text(row.name, 'name'),
        size: integer(row.size, 'size'),
        modifiedAt: integer(row.modified_at, 'modified_at'),
      });
    }
    return listed;
  }

  /** Puts no live process owns (isLeftover, by the owner each was tagged with), and removed archives' rows kept long enough. */
  async removeLeftovers(options: LeftoverOptions): Promise<number> {
    const sql = (statement: string, values: unknown[]) => this.query(statement, values);
    const removed = await removeLeftoverPuts(sql, { table: this.archives, keyColumns: ['name'], read }, options);
    await this.query(`DELETE FROM ${this.archives} WHERE removed_at < ${NOW_MS} - $1`, [this.removedKeptMs]);
    return removed.length;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
