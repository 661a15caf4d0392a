import { setTimeout as sleep } from 'node:timers/promises';
import { Client, errors, type estypes } from '@elastic/elasticsearch';
import { DependencyUnavailableError } from '../errors.js';
import { checkedStamp, type LogStamp } from '../log-stamp.js';
import { chunkMappings, MODEL_FIELD, TEMPLATE_PRIORITY, TITLE_KEY_FIELD } from './elasticsearch-mappings.js';
import {
  resourceKey,
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

interface ChunkSource {
  resource_key: string;
  resource_type: ResourceType;
  resource_id: number;
  title: string;
  /** titleKey(title); absent from chunks written before titles were matched, until they are reindexed. */
  title_key?: string;
  path: string;
  text: string;
  chunk_index: number;
  site_ids: number[];
  item_set_ids: number[];
  /** The model that made the vector: searches compare only chunks of their query's model. */
  model: string;
  vector: number[];
}

function unavailable(error: unknown): DependencyUnavailableError {
  const status = error instanceof errors.ResponseError ? ` (HTTP ${error.statusCode ?? 'error'})` : '';
  return new DependencyUnavailableError('vector index', `The vector index is unavailable${status}.`);
}

function chunkId(key: string, index: number): string {
  return `${key}-${index}`;
}

/** The `error.type` of Elasticsearch's answer, e.g. `resource_already_exists_exception`. */
function errorType(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body: unknown = error.body;
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const detail: unknown = body.error;
  return typeof detail === 'object' && detail !== null && 'type' in detail && typeof detail.type === 'string'
    ? detail.type
    : undefined;
}

/**
 * Answers of a stamp index another server is creating this moment (two servers starting at once):
 * its shard not started yet (503), or created by both.
 */
function isCreationRace(error: unknown): boolean {
  if (!(error instanceof errors.ResponseError)) return false;
  const type = errorType(error);
  return (
    error.statusCode === 503 ||
    type === 'no_shard_available_action_exception' ||
    type === 'unavailable_shards_exception' ||
    type === 'resource_already_exists_exception'
  );
}

/** How often, and how far apart, a request to the stamp index is tried while it is being created. */
const STAMP_ATTEMPTS = 40;
const STAMP_PAUSE_MS = 250;

function isIndexMissing(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.statusCode === 404;
}

/** The filter of a search as Elasticsearch clauses: its model's chunks only, then the same rule as passesFilter. */
export function filterQuery(filter: SearchFilter): Record<string, unknown>[] {
  const clauses: Record<string, unknown>[] = [{ term: { model: filter.model ?? UNNAMED_MODEL } }];
  if (filter.siteId !== undefined) clauses.push({ term: { site_ids: filter.siteId } });
  if (filter.itemSetIds && filter.itemSetIds.length > 0) {
    clauses.push({ terms: { resource_type: ['item', 'media'] } });
    clauses.push({ terms: { item_set_ids: filter.itemSetIds } });
  }
  return clauses;
}

/** How long a new index's shard may take to answer searches. */
const SHARD_START_MS = 30_000;

/** Chunk ids read per search when listing a resource's chunks. */
const ID_PAGE = 1_000;

/**
 * Elasticsearch: one document per chunk with a `dense_vector` (cosine, exact) field and the keyword
 * of the model that made it, kNN search with the filter (the query's model first) applied
 * inside the kNN so k counts only allowed chunks. The index is created on first write, when
 * the embedder's dimension is known; an index made before chunks recorded their model gets the
 * field added, and its old chunks, of no known model, are found again once reindexed.
 *
 * It uses only the server core's endpoints: a resource's chunks are found by a search and
 * deleted in a bulk request, because `_delete_by_query` belongs to the `reindex` module, which
 * a minimal distribution (the integ-test-zip the tests run) does not have.
 */
export class ElasticsearchVectorIndex implements VectorIndex {
  readonly persistent = true;
  private readonly client: Client;
  private ready: Promise<void> | null = null;

  constructor(
    url: string,
    private readonly index = 'chatbot-chunks',
    client?: Client,
  ) {
    this.client = client ?? new Client({ node: url, requestTimeout: 10_000, maxRetries: 1 });
  }

  /**
   * The index with its mappings, and a template of them for its name: a bulk request of another
   * handle (a server while the reindex CLI clears the index) re-creates a deleted index, which
   * would otherwise get dynamic mappings (the vectors as plain floats, no kNN). Another handle
   * may create the index first; that one is used.
   */
  private ensureIndex(dimension: number): Promise<void> {
    this.ready ??= (async () => {
      const mappings = chunkMappings(dimension);
      await this.client.indices.putIndexTemplate({
        name: this.index,
        index_patterns: [this.index],
        priority: TEMPLATE_PRIORITY,
        template: { mappings },
      });
      const created = !(await this.client.indices.exists({ index: this.index })) && (await this.createIndex(mappings));
      // An index made before chunks recorded their model, or their title's key, gets the fields.
      if (!created)
        await this.client.indices.putMapping({
          index: this.index,
          properties: { model: MODEL_FIELD, title_key: TITLE_KEY_FIELD },
        });
      await this.untilSearchable();
    })().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  /**
   * Waits, bounded, until the index answers a search. One that another handle created a moment
   * ago can be reported started (even by a yellow health) while its shard still refuses
   * searches with a 503 (no_shard_available_action_exception).
   */
  private async untilSearchable(): Promise<void> {
    const deadline = Date.now() + SHARD_START_MS;
    for (;;) {
      try {
        await this.client.count({ index: this.index });
        return;
      } catch (error) {
        if (!(error instanceof errors.ResponseError && error.statusCode === 503) || Date.now() > deadline) throw error;
        await sleep(100);
      }
    }
  }

  /** False when another handle created the index in the meantime. */
  private async createIndex(mappings: estypes.MappingTypeMapping): Promise<boolean> {
    try {
      await this.client.indices.create({ index: this.index, mappings });
      return true;
    } catch (error) {
      if (errorType(error) === 'resource_already_exists_exception') return false;
      throw error;
    }
  }

  async replace(resource: IndexedResource, chunks: ChunkInput[], model = UNNAMED_MODEL): Promise<void> {
    try {
      if (chunks.length === 0) return await this.remove(resource.resourceType, resource.resourceId);
      await this.ensureIndex(chunks[0].vector.length);
      const key = resourceKey(resource.resourceType, resource.resourceId);
      const writes = chunks.flatMap((chunk, index) => {
        const source: ChunkSource = {
          resource_key: key,
          resource_type: resource.resourceType,
          resource_id: resource.resourceId,
          title: resource.title,
          title_key: titleKey(resource.title),
          path: resource.path,
          text: chunk.text,
          chunk_index: index,
          site_ids: resource.siteIds,
          item_set_ids: resource.itemSetIds,
          model,
          vector: Array.from(chunk.vector),
        };
        return [{ index: { _index: this.index, _id: chunkId(key, index) } }, source];
      });
      // The new chunks overwrite the old ones of the same place; only those past the new count
      // are deleted, in the same request, so a search never finds the resource without chunks.
      const written = new Set(chunks.map((_, index) => chunkId(key, index)));
      const stale = (await this.chunkIds(key)).filter((id) => !written.has(id));
      await this.bulk([...writes, ...stale.map((id) => this.deletion(id))]);
    } catch (error) {
      if (error instanceof DependencyUnavailableError) throw error;
      throw unavailable(error);
    }
  }

  async remove(resourceType: ResourceType, resourceId: number): Promise<void> {
    try {
      const ids = await this.chunkIds(resourceKey(resourceType, resourceId));
      if (ids.length > 0) await this.bulk(ids.map((id) => this.deletion(id)));
    } catch (error) {
      if (isIndexMissing(error)) return;
      if (error instanceof DependencyUnavailableError) throw error;
      throw unavailable(error);
    }
  }

  /** Every chunk id the index holds for a resource, in chunk order, a page at a time; none when there is no index. */
  private async chunkIds(key: string): Promise<string[]> {
    const ids: string[] = [];
    let after: estypes.SortResults | undefined;
    for (;;) {
      const page = await this.client
        .search({
          index: this.index,
          size: ID_PAGE,
          query: { term: { resource_key: key } },
          _source: false,
          sort: [{ chunk_index: 'asc' }],
          track_total_hits: false,
          ...(after ? { search_after: after } : {}),
        })
        .catch((error: unknown) => {
          // Another handle's clear: the bulk request that follows re-creates the index from its template.
          if (isIndexMissing(error)) return null;
          throw error;
        });
      const hits = page?.hits.hits ?? [];
      for (const hit of hits) if (hit._id !== undefined) ids.push(hit._id);
      after = hits.at(-1)?.sort;
      if (hits.length < ID_PAGE || !after) return ids;
    }
  }

  private deletion(id: string): estypes.BulkOperationContainer {
    return { delete: { _index: this.index, _id: id } };
  }

  /** One bulk request, visible to searches when it returns; an item the index refused fails it. */
  private async bulk(operations: (estypes.BulkOperationContainer | ChunkSource)[]): Promise<void> {
    const result = await this.client.bulk({ operations, refresh: true });
    if (result.errors) throw new DependencyUnavailableError('vector index', 'The vector index refused some chunks.');
  }

  async search(vector: Float32Array, k: number, filter: SearchFilter = {}): Promise<VectorHit[]> {
    if (k <= 0) return [];
    try {
      const clauses = filterQuery(filter);
      const response = await this.client.search<ChunkSource>({
        index: this.index,
        size: k,
        knn: {
          field: 'vector',
          query_vector: Array.from(vector),
          k,
          num_candidates: Math.min(10_000, Math.max(k * 4, 100)),
          filter: clauses,
        },
        _source: { excludes: ['vector'] },
      });
      return response.hits.hits.flatMap((hit) => {
        const source = hit._source;
        if (!source) return [];
        // Elasticsearch scores cosine as (1 + cos) / 2.
        const cosine = 2 * (hit._score ?? 0) - 1;
        return [
          {
            resourceType: source.resource_type,
            resourceId: source.resource_id,
            title: source.title,
            path: source.path,
            text: source.text,
            chunkIndex: source.chunk_index,
            distance: Math.min(2, Math.max(0, 1 - cosine)),
          },
        ];
      });
    } catch (error) {
      if (isIndexMissing(error)) return [];
      throw unavailable(error);
    }
  }

  async titled(keys: string[], limit: number, filter: SearchFilter = {}): Promise<TitledChunk[]> {
    if (keys.length === 0 || limit <= 0) return [];
    try {
      const response = await this.client.search<ChunkSource>({
        index: this.index,
        size: limit,
        query: {
          bool: { filter: [{ terms: { title_key: keys } }, { term: { chunk_index: 0 } }, ...filterQuery(filter)] },
        },
        sort: [{ resource_type: 'asc' }, { resource_id: 'asc' }],
        track_total_hits: false,
        _source: { excludes: ['vector'] },
      });
      return response.hits.hits.flatMap((hit) => {
        const source = hit._source;
        if (!source) return [];
        return [
          {
            resourceType: source.resource_type,
            resourceId: source.resource_id,
            title: source.title,
            path: source.path,
            text: source.text,
            chunkIndex: source.chunk_index,
          },
        ];
      });
    } catch (error) {
      if (isIndexMissing(error)) return [];
      throw unavailable(error);
    }
  }

  async size(): Promise<number> {
    try {
      await this.client.indices.refresh({ index: this.index });
      return (await this.client.count({ index: this.index })).count;
    } catch (error) {
      if (isIndexMissing(error)) return 0;
      throw unavailable(error);
    }
  }

  async models(): Promise<Record<string, number>> {
    try {
      await this.client.indices.refresh({ index: this.index });
      const answer = await this.client.search<unknown, { models: { buckets: { key: string; doc_count: number }[] } }>({
        index: this.index,
        size: 0,
        aggs: { models: { terms: { field: 'model', size: 1000 } } },
      });
      const buckets = answer.aggregations?.models.buckets ?? [];
      return Object.fromEntries(buckets.map((bucket) => [bucket.key, bucket.doc_count]));
    } catch (error) {
      if (isIndexMissing(error)) return {};
      throw unavailable(error);
    }
  }

  /**
   * The log stamp lives in an index of its own (`<index>-log`, one document): clear deletes the
   * chunks' index, and the stamp stays.
   */
  private get stampIndex(): string {
    return `${this.index}-log`;
  }

  /** A request to the stamp index, tried again while another server is creating that index. */
  private async onStampIndex<T>(request: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        if (attempt >= STAMP_ATTEMPTS || !isCreationRace(error)) throw error;
        await sleep(STAMP_PAUSE_MS);
      }
    }
  }

  async logStamp(): Promise<LogStamp | null> {
    let source: unknown;
    try {
      source = (await this.onStampIndex(() => this.client.get<unknown>({ index: this.stampIndex, id: 'log' })))._source;
    } catch (error) {
      // 404: no stamp index yet, or no stamp in it.
      if (isIndexMissing(error)) return null;
      throw unavailable(error);
    }
    return checkedStamp(source, `the vector index ${this.index}`);
  }

  async stampLog(stamp: LogStamp): Promise<void> {
    try {
      await this.onStampIndex(() =>
        this.client.index({ index: this.stampIndex, id: 'log', document: stamp, refresh: true }),
      );
    } catch (error) {
      throw unavailable(error);
    }
  }

  async claimLog(stamp: LogStamp): Promise<LogStamp> {
    try {
      await this.onStampIndex(() =>
        this.client.index({ index: this.stampIndex, id: 'log', document: stamp, op_type: 'create', refresh: true }),
      );
      return stamp;
    } catch (error) {
      // 409: another server's stamp came first.
      if (!(error instanceof errors.ResponseError && error.statusCode === 409)) throw unavailable(error);
    }
    const kept = await this.logStamp();
    if (!kept) throw new Error(`The vector index ${this.index} refused a log stamp but holds none.`);
    return kept;
  }

  async clear(): Promise<void> {
    try {
      await this.client.indices.delete({ index: this.index, ignore_unavailable: true });
      this.ready = null;
    } catch (error) {
      throw unavailable(error);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
