import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { parseCheckedOrThrow } from '../checked-json.js';
import { LogStampSchema, type LogStamp } from '../log-stamp.js';
import { PreparedStatements } from '../prepared-statements.js';
import { nearestByFirstPass, type FirstPassLimits } from './first-pass.js';
import { ModelMatrices, type WrittenChunk } from './model-matrices.js';
import { blob, filterClause, scanNearest, type HitRow } from './sqlite-ranking.js';
import {
  titleKey,
  UNNAMED_MODEL,
  type ChunkInput,
  type IndexedResource,
  type ResourceType,
  type SearchFilter,
  type TitledChunk,
  type VectorHit,
  type VectorIndex,
} from './port.js';

const SCHEMA = `
  create table if not exists vector_resources (
    id integer primary key,
    resource_type text not null,
    resource_id integer not null,
    title text not null,
    path text not null,
    -- titleKey(title) (port.ts), for finding a resource by its title; added by migrateTitleKeys to older files.
    title_key text not null default '',
    unique (resource_type, resource_id)
  );
  create table if not exists vector_resource_sites (
    site_id integer not null,
    resource integer not null,
    primary key (site_id, resource)
  ) without rowid;
  create table if not exists vector_resource_item_sets (
    item_set_id integer not null,
    resource integer not null,
    primary key (item_set_id, resource)
  ) without rowid;
  create table if not exists vector_chunks (
    id integer primary key,
    resource integer not null,
    chunk_index integer not null,
    model text not null,
    -- Before the text: a scan reads the vectors and never walks through the texts.
    vector blob not null,
    text text not null
  );
  create index if not exists vector_chunks_resource on vector_chunks (resource);
  create index if not exists vector_chunks_model on vector_chunks (model);
  create table if not exists vector_settings (key text primary key, value integer not null);
  -- The log the index was built from (VectorIndex.logStamp), as JSON; kept by clear.
  create table if not exists vector_log_stamp (one integer primary key check (one = 1), stamp text not null);
`;

/** After migrateTitleKeys: a file made before titles were matched has no title_key column until then. */
const TITLE_KEY_INDEX = 'create index if not exists vector_resources_title_key on vector_resources (title_key)';

/**
 * The connection's page cache, in KiB as SQLite's negative `cache_size` takes it: 2 MB, SQLite's
 * own default, instead of the 16 MB better-sqlite3 builds it with. Reading the matrices walks
 * the whole file once, which filled those 16 MB for good (14 MB of the server's RSS); a search
 * then looks up a few hundred chunks by id, for which the b-tree's upper pages are what a cache
 * keeps warm, and the file's other pages come from the OS (docs/perf-history.md, memory round 1).
 */
const PAGE_CACHE_KIB = -2000;

export interface SqliteVectorIndexOptions extends Partial<FirstPassLimits> {
  /** How long another connection's writes must pause before the matrices are read again (ModelMatrices). */
  reloadPauseMs?: number;
  /**
   * Read a model's matrix batch by batch between other work (a server: the event loop is never
   * held a second or two; a search arriving meanwhile waits for the reading); else at once, by
   * the first search.
   */
  readInBackground?: boolean;
}

/** How many searches each way answered, for benchmarks and tests. */
export interface SearchCounts {
  firstPass: number;
  scan: number;
}

/**
 * The embedded vector index on sqlite-vec, in one SQLite file (or ':memory:'): chunks with their
 * float32 vectors and the model that made them, the resources with their sites and item sets.
 * The file is the source of truth, so a restart embeds nothing. Searches are exact:
 * - a first pass over an in-memory int8 matrix of the model's vectors (ModelMatrices, read from
 *   the file from `warm` or the model's first search on) by usearch's SIMD `exactSearch` picks
 *   the k + margin nearest candidates;
 * - sqlite-vec's `vec_distance_cosine` then ranks the candidates that pass the filter exactly, by
 *   (distance, id) as the scan does. When too few candidates pass, or the k-th hit lies too close
 *   to the candidates' end, more are read; past a quarter of the rows, or while another
 *   connection keeps writing, the index scans every chunk in SQL (`scanNearest`), the
 *   reference. While the matrix is being read in the background, a search waits for it.
 * (A first pass on sign bits in a vec0 table was measured and dropped: recall@10 0.28 on the
 * words embedder's sparse vectors; see docs/perf-history.md.)
 */
export class SqliteVectorIndex implements VectorIndex {
  readonly persistent: boolean;
  private readonly db: Database.Database;
  private readonly statements: PreparedStatements;
  private readonly matrices: ModelMatrices;
  private readonly limits: FirstPassLimits;
  readonly searchCounts: SearchCounts = { firstPass: 0, scan: 0 };

  constructor(file = ':memory:', options: SqliteVectorIndexOptions = {}) {
    this.persistent = file !== ':memory:';
    this.db = new Database(file);
    sqliteVec.load(this.db);
    if (this.persistent) {
      this.db.pragma('journal_mode = WAL');
      // The reindex CLI may write while the server reads.
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma(`cache_size = ${PAGE_CACHE_KIB}`);
    }
    this.db.exec(SCHEMA);
    migrateTitleKeys(this.db);
    this.db.exec(TITLE_KEY_INDEX);
    this.statements = new PreparedStatements(this.db);
    this.matrices = new ModelMatrices(
      this.statements,
      options.reloadPauseMs ?? 1000,
      options.readInBackground ?? false,
    );
    this.limits = { minMargin: options.minMargin ?? 100, maxCandidateShare: options.maxCandidateShare ?? 0.25 };
  }

  async replace(resource: IndexedResource, chunks: ChunkInput[], model = UNNAMED_MODEL): Promise<void> {
    const dimension = chunks[0]?.vector.length ?? 0;
    if (chunks.some((chunk) => chunk.vector.length !== dimension))
      throw new Error('Vectors of one replace must share a dimension.');
    const inserted: WrittenChunk[] = [];
    const deleted = this.db.transaction(() => {
      const removed = this.removeSync(resource.resourceType, resource.resourceId);
      if (chunks.length === 0) return removed;
      this.ensureDimension(dimension);
      const { lastInsertRowid: id } = this.statements
        .get('insert into vector_resources (resource_type, resource_id, title, path, title_key) values (?, ?, ?, ?, ?)')
        .run(resource.resourceType, resource.resourceId, resource.title, resource.path, titleKey(resource.title));
      const site = this.statements.get('insert or ignore into vector_resource_sites (site_id, resource) values (?, ?)');
      for (const siteId of resource.siteIds) site.run(siteId, id);
      const itemSet = this.statements.get(
        'insert or ignore into vector_resource_item_sets (item_set_id, resource) values (?, ?)',
      );
      for (const itemSetId of resource.itemSetIds) itemSet.run(itemSetId, id);
      const chunk = this.statements.get(
        'insert into vector_chunks (resource, chunk_index, model, vector, text) values (?, ?, ?, ?, ?)',
      );
      chunks.forEach(({ text, vector }, index) => {
        const { lastInsertRowid } = chunk.run(id, index, model, blob(vector), text);
        inserted.push({ id: Number(lastInsertRowid), model, vector });
      });
      return removed;
    })();
    this.matrices.written(deleted, inserted);
  }

  async remove(resourceType: ResourceType, resourceId: number): Promise<void> {
    this.matrices.written(this.db.transaction(() => this.removeSync(resourceType, resourceId))(), []);
  }

  async search(vector: Float32Array, k: number, filter: SearchFilter = {}): Promise<VectorHit[]> {
    const model = filter.model ?? UNNAMED_MODEL;
    if (k <= 0 || !this.statements.get('select 1 from vector_chunks where model = ? limit 1').get(model)) return [];
    const held = this.dimension();
    if (vector.length !== held)
      throw new Error(`Vector of dimension ${vector.length} given to an index of dimension ${held}.`);
    let matrix = this.matrices.get(model, held);
    // The matrix is being read (batch by batch, between requests): waiting for its last batches
    // costs a search less than scanning every chunk in SQL, which also held the event loop for
    // hundreds of ms a search and so stretched the reading over half a minute (docs/perf-history.md).
    if (!matrix && this.matrices.reading(model, held)) {
      await this.matrices.whenRead(model, held);
      matrix = this.matrices.get(model, held);
    }
    let rows = matrix && nearestByFirstPass(this.statements, matrix, vector, k, model, filter, this.limits);
    if (rows) this.searchCounts.firstPass++;
    else {
      rows = scanNearest(this.statements, vector, k, model, filter);
      this.searchCounts.scan++;
    }
    return rows.map((row) => ({
      resourceType: row.resource_type,
      resourceId: row.resource_id,
      title: row.title,
      path: row.path,
      text: row.text,
      chunkIndex: row.chunk_index,
      distance: Math.min(2, Math.max(0, row.distance)),
    }));
  }

  async titled(keys: string[], limit: number, filter: SearchFilter = {}): Promise<TitledChunk[]> {
    if (keys.length === 0 || limit <= 0) return [];
    const { where, params } = filterClause(filter);
    // `cross join`: the resources named by their title key first, through its index. Left to
    // choose, SQLite walked every chunk of the model (its index matches them all) and took
    // 110 ms over 100,000 chunks for the few titles asked (docs/perf-history.md).
    const rows = this.statements
      .get(
        `select r.resource_type, r.resource_id, r.title, r.path, c.text, c.chunk_index
         from vector_resources r cross join vector_chunks c on c.resource = r.id and c.chunk_index = 0
         where r.title_key in (select value from json_each(?)) and c.model = ?${where}
         order by r.resource_type, r.resource_id
         limit ?`,
      )
      .all(JSON.stringify(keys), filter.model ?? UNNAMED_MODEL, ...params, limit) as Omit<HitRow, 'id' | 'distance'>[];
    return rows.map((row) => ({
      resourceType: row.resource_type,
      resourceId: row.resource_id,
      title: row.title,
      path: row.path,
      text: row.text,
      chunkIndex: row.chunk_index,
    }));
  }

  async size(): Promise<number> {
    return (this.statements.get('select count(*) as n from vector_chunks').get() as { n: number }).n;
  }

  async models(): Promise<Record<string, number>> {
    const rows = this.statements.get('select model, count(*) as n from vector_chunks group by model').all() as {
      model: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((row) => [row.model, row.n]));
  }

  async clear(): Promise<void> {
    this.db.transaction(() => {
      this.db.exec(
        'delete from vector_chunks; delete from vector_resources; delete from vector_resource_sites; delete from vector_resource_item_sets;',
      );
      this.resetDimension();
    })();
    this.matrices.clear();
  }

  async logStamp(): Promise<LogStamp | null> {
    const row = this.statements.get('select stamp from vector_log_stamp where one = 1').get() as
      { stamp: string } | undefined;
    return row ? parseCheckedOrThrow(LogStampSchema, row.stamp, 'The log stamp of the vector index') : null;
  }

  async stampLog(stamp: LogStamp): Promise<void> {
    this.statements
      .get('insert or replace into vector_log_stamp (one, stamp) values (1, ?)')
      .run(JSON.stringify(stamp));
  }

  async claimLog(stamp: LogStamp): Promise<LogStamp> {
    this.statements.get('insert or ignore into vector_log_stamp (one, stamp) values (1, ?)').run(JSON.stringify(stamp));
    const kept = await this.logStamp();
    if (!kept) throw new Error('The vector index refused a log stamp but holds none.');
    return kept;
  }

  /**
   * Resolves once the model's matrix is read (or its reading given up, when another connection
   * writes): for a server at start, a benchmark or a test.
   */
  async readMatrix(model = UNNAMED_MODEL): Promise<void> {
    const dimension = this.dimension();
    if (dimension > 0) await this.matrices.whenRead(model, dimension);
  }

  warm(model: string): void {
    const dimension = this.dimension();
    if (dimension > 0 && this.statements.get('select 1 from vector_chunks where model = ? limit 1').get(model))
      this.matrices.get(model, dimension);
  }

  async close(): Promise<void> {
    this.matrices.clear();
    if (this.db.open) this.db.close();
  }

  /** The index holds one dimension; another is taken only once no chunk is left. */
  private ensureDimension(dimension: number): void {
    const held = this.dimension();
    if (dimension === held) return;
    if (this.statements.get('select 1 from vector_chunks limit 1').get()) {
      throw new Error(`Vector of dimension ${dimension} given to an index of dimension ${held}.`);
    }
    this.statements.get("insert or replace into vector_settings (key, value) values ('dimension', ?)").run(dimension);
  }

  /**
   * The dimension of the chunks held (0 for none), read each time rather than kept: the reindex
   * CLI may clear the file and fill it with another model's while a server has it open.
   */
  private dimension(): number {
    const row = this.statements.get("select value from vector_settings where key = 'dimension'").get() as
      { value: number } | undefined;
    return row?.value ?? 0;
  }

  private resetDimension(): void {
    this.db.exec("delete from vector_settings where key = 'dimension';");
  }

  /** Deletes a resource and its chunks, returning the chunks deleted. */
  private removeSync(resourceType: ResourceType, resourceId: number): WrittenChunk[] {
    const row = this.statements
      .get('select id from vector_resources where resource_type = ? and resource_id = ?')
      .get(resourceType, resourceId) as { id: number } | undefined;
    if (!row) return [];
    const chunks = this.statements
      .get('select id, model from vector_chunks where resource = ?')
      .all(row.id) as WrittenChunk[];
    this.statements.get('delete from vector_chunks where resource = ?').run(row.id);
    this.statements.get('delete from vector_resource_sites where resource = ?').run(row.id);
    this.statements.get('delete from vector_resource_item_sets where resource = ?').run(row.id);
    this.statements.get('delete from vector_resources where id = ?').run(row.id);
    return chunks;
  }
}

/**
 * Gives a file made before titles were matched its title keys: the column, then every
 * resource's key in one statement (about a second for 100,000 resources, once).
 */
function migrateTitleKeys(db: Database.Database): void {
  const columns = db.pragma('table_info(vector_resources)') as { name: string }[];
  if (columns.some((column) => column.name === 'title_key')) return;
  db.function('chatbot_title_key', { deterministic: true }, (title: unknown) => titleKey(String(title)));
  db.transaction(() => {
    db.exec("alter table vector_resources add column title_key text not null default ''");
    db.exec('update vector_resources set title_key = chatbot_title_key(title)');
  })();
}
