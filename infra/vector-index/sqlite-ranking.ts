import type { PreparedStatements } from '../prepared-statements.js';
import type { ResourceType, SearchFilter } from './port.js';

/** A hit as SQL gives it, with the chunk's id. */
export interface HitRow {
  id: number;
  resource_type: ResourceType;
  resource_id: number;
  title: string;
  path: string;
  text: string;
  chunk_index: number;
  distance: number;
}

export interface RankedChunk {
  id: number;
  distance: number;
}

/**
 * The exact cosine distance of sqlite-vec, `vec_distance_cosine` (a zero vector at distance 1),
 * and the order of hits by (distance, chunk id): the one definition both the scan and the
 * re-ranking of candidates use, so that they agree to the last bit.
 */
const DISTANCE = 'coalesce(vec_distance_cosine(c.vector, ?), 1)';

/** The k nearest chunks of the model that the filter allows, by scanning every one of them. */
export function scanNearest(
  statements: PreparedStatements,
  vector: Float32Array,
  k: number,
  model: string,
  filter: SearchFilter,
): HitRow[] {
  const { where, params } = filterClause(filter);
  // The nearest chunks first, by the vectors alone; only the k kept are joined to their resources and texts.
  return statements
    .get(
      `select best.id, r.resource_type, r.resource_id, r.title, r.path, c.text, c.chunk_index, best.distance
       from (
         select c.id, ${DISTANCE} as distance
         from vector_chunks c
         where c.model = ?${where}
         order by distance, c.id
         limit ?
       ) best
       join vector_chunks c on c.id = best.id
       join vector_resources r on r.id = c.resource
       order by best.distance, best.id`,
    )
    .all(blob(vector), model, ...params, k) as HitRow[];
}

/**
 * Every candidate chunk of the model that the filter allows, nearest first. (`+c.model`: each
 * candidate is looked up by its id alone, not through the model's index and then the table.)
 */
export function rankCandidates(
  statements: PreparedStatements,
  vector: Float32Array,
  candidateIds: number[],
  model: string,
  filter: SearchFilter,
): RankedChunk[] {
  const { where, params } = filterClause(filter);
  return statements
    .get(
      `select c.id, ${DISTANCE} as distance
       from vector_chunks c
       where c.id in (select value from json_each(?)) and +c.model = ?${where}
       order by distance, c.id`,
    )
    .all(blob(vector), JSON.stringify(candidateIds), model, ...params) as RankedChunk[];
}

/** The resources and texts of ranked chunks, in their order. */
export function hitDetails(statements: PreparedStatements, ranked: RankedChunk[]): HitRow[] {
  const rows = statements
    .get(
      `select c.id, r.resource_type, r.resource_id, r.title, r.path, c.text, c.chunk_index
       from vector_chunks c join vector_resources r on r.id = c.resource
       where c.id in (select value from json_each(?))`,
    )
    .all(JSON.stringify(ranked.map((chunk) => chunk.id))) as Omit<HitRow, 'distance'>[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ranked.flatMap(({ id, distance }) => {
    const row = byId.get(id);
    return row ? [{ ...row, distance }] : [];
  });
}

/** The SQL of `passesFilter` (port.ts) over the chunks `c`, with its parameters. */
export function filterClause(filter: SearchFilter): { where: string; params: unknown[] } {
  let where = '';
  const params: unknown[] = [];
  if (filter.siteId !== undefined) {
    where += ' and c.resource in (select resource from vector_resource_sites where site_id = ?)';
    params.push(filter.siteId);
  }
  if (filter.itemSetIds && filter.itemSetIds.length > 0) {
    where +=
      " and c.resource in (select s.resource from vector_resource_item_sets s join vector_resources r on r.id = s.resource where r.resource_type in ('item', 'media') and s.item_set_id in (select value from json_each(?)))";
    params.push(JSON.stringify(filter.itemSetIds));
  }
  return { where, params };
}

export function blob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
