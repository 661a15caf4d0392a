import type { LogStamp } from '../log-stamp.js';

export type ResourceType = 'item' | 'media' | 'blog_post' | 'site_page';

/** The resource a set of chunks belongs to, with what search filters and results need. */
export interface IndexedResource {
  resourceType: ResourceType;
  resourceId: number;
  title: string;
  /** Path on the public site without a site prefix, e.g. `/item/12` or `/blog/my-post`. */
  path: string;
  siteIds: number[];
  /** Item sets of an item (a media's are its item's); empty for posts and pages. */
  itemSetIds: number[];
}

export interface ChunkInput {
  text: string;
  vector: Float32Array;
}

/**
 * The model a chunk's vector was made by when a caller names none (tests of the index itself).
 * Vectors of two models are not comparable, so every chunk records its model and a search
 * looks only at the chunks of its query's model.
 */
export const UNNAMED_MODEL = 'unnamed';

export interface SearchFilter {
  /** The model that made the query vector: only chunks it made are compared (UNNAMED_MODEL when absent). */
  model?: string;
  /** Only resources that belong to this site. */
  siteId?: number;
  /** When non-empty: only items in at least one of these sets and their media. */
  itemSetIds?: number[];
}

export interface VectorHit {
  resourceType: ResourceType;
  resourceId: number;
  title: string;
  path: string;
  text: string;
  chunkIndex: number;
  /** Cosine distance, 0 for identical directions. */
  distance: number;
}

/** A resource's first chunk, found by its title rather than by a vector: no distance of its own. */
export type TitledChunk = Omit<VectorHit, 'distance'>;

/**
 * The words of a title (or of a query) as titles are matched: NFKC, lower case, letters and
 * digits only (every other character separates words). `titleKey` joins them with one space.
 */
export function titleWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** A title as the index matches it: "The Starry Night!" and "the  starry-night" are one key. */
export function titleKey(title: string): string {
  return titleWords(title).join(' ');
}

/**
 * Chunks of public resources with their vectors and the model that made them. A resource's
 * chunks are replaced as a whole; search is k nearest by cosine among the chunks of the query's
 * model that the filter allows, nearest first. A reindex with another model moves each resource
 * over to it as it goes.
 */
export interface VectorIndex {
  /** True when the index outlives the process (Elasticsearch); the embedded one is rebuilt at start. */
  readonly persistent: boolean;
  /** Replaces every chunk of the resource, recording the model that made their vectors; no chunks removes it. */
  replace(resource: IndexedResource, chunks: ChunkInput[], model?: string): Promise<void>;
  remove(resourceType: ResourceType, resourceId: number): Promise<void>;
  search(vector: Float32Array, k: number, filter?: SearchFilter): Promise<VectorHit[]>;
  /**
   * The first chunk (of the filter's model, allowed by the filter) of each resource whose
   * `titleKey` is one of `keys`, at most `limit` of them, by resource type and id: a query
   * naming a title finds that resource however far its chunks' vectors lie.
   */
  titled(keys: string[], limit: number, filter?: SearchFilter): Promise<TitledChunk[]>;
  /**
   * Starts reading, in the background, what searches of this model need (the embedded index's
   * matrix), so that the first searches find it read: a server calls it once it listens.
   * Absent where there is nothing to read.
   */
  warm?(model: string): void;
  /** Number of chunks held. */
  size(): Promise<number>;
  /** Chunks held by the model that made them: after an upgrade, the previous model's are read again. */
  models(): Promise<Record<string, number>>;
  /** Empties the index; its log stamp stays. */
  clear(): Promise<void>;
  /**
   * The event log the index was built from (infra/log-identity.ts): null until stamped. A start
   * whose log is another refuses, since the chunks name resources of that other log.
   */
  logStamp(): Promise<LogStamp | null>;
  /** Writes the stamp, over any other (a reindex, a restore). */
  stampLog(stamp: LogStamp): Promise<void>;
  /**
   * Writes the stamp unless the index has one, and answers the one it has then: of servers
   * racing to stamp a new index (on two logs), one stamp stays and each sees which.
   */
  claimLog(stamp: LogStamp): Promise<LogStamp>;
  close(): Promise<void>;
}

export function resourceKey(resourceType: ResourceType, resourceId: number): string {
  return `${resourceType}-${resourceId}`;
}

/** Whether a resource passes a search filter; both adapters apply the same rule. */
export function passesFilter(
  resource: Pick<IndexedResource, 'resourceType' | 'siteIds' | 'itemSetIds'>,
  filter: SearchFilter,
): boolean {
  if (filter.siteId !== undefined && !resource.siteIds.includes(filter.siteId)) return false;
  if (filter.itemSetIds && filter.itemSetIds.length > 0) {
    if (resource.resourceType !== 'item' && resource.resourceType !== 'media') return false;
    if (!resource.itemSetIds.some((id) => filter.itemSetIds?.includes(id))) return false;
  }
  return true;
}
