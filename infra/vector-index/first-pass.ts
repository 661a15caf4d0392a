import type { PreparedStatements } from '../prepared-statements.js';
import type { SearchFilter } from './port.js';
import type { QuantizedMatrix } from './quantized-matrix.js';
import { hitDetails, rankCandidates, type HitRow, type RankedChunk } from './sqlite-ranking.js';

export interface FirstPassLimits {
  /** Candidates read beyond k, at least: the margin for the codes' rounding (docs/perf-history.md). */
  minMargin: number;
  /** Beyond this share of the rows as candidates, a first pass saves little: the SQL scan answers instead. */
  maxCandidateShare: number;
}

/** Candidates beyond k per hit asked for, when more than the minimum margin. */
const MARGIN_PER_K = 1;

/**
 * The k nearest chunks by a first pass over the model's int8 matrix, its candidates ranked
 * exactly in SQL; undefined when the SQL scan should answer instead. The hits are accepted when
 * k candidates pass the filter and each lies at least half the margin before the candidates'
 * end, at a first-pass distance below the last candidate's: a chunk left out would have had to
 * lose that many places to the codes' rounding. Else more candidates are read, as many as the
 * share that passed the filter calls for.
 */
export function nearestByFirstPass(
  statements: PreparedStatements,
  matrix: QuantizedMatrix,
  vector: Float32Array,
  k: number,
  model: string,
  filter: SearchFilter,
  limits: FirstPassLimits,
): HitRow[] | undefined {
  if (matrix.rows === 0) return undefined;
  const margin = Math.max(MARGIN_PER_K * k, limits.minMargin);
  // A filter lets only a share of the candidates through: start with twice as many.
  let wanted = (k + margin) * (filter.siteId !== undefined || (filter.itemSetIds?.length ?? 0) > 0 ? 2 : 1);
  const ranked = new Set<number>();
  let passing: RankedChunk[] = [];
  for (;;) {
    const count = Math.min(wanted, matrix.rows);
    if (count > matrix.rows * limits.maxCandidateShare) return undefined;
    const { ids: candidates, distances } = matrix.nearest(vector, count);
    // A later round's candidates include the earlier ones' (but for ties at their edge): rank only the new.
    const fresh = candidates.filter((id) => !ranked.has(id));
    for (const id of fresh) ranked.add(id);
    passing = passing.concat(rankCandidates(statements, vector, fresh, model, filter)).sort(byDistanceThenId);
    const hits = passing.slice(0, k);
    // Every row is a candidate: the ranking is the scan's.
    if (count === matrix.rows) return hitDetails(statements, hits);
    const place = new Map(candidates.map((id, index) => [id, index]));
    let lastPlace = -1;
    for (const hit of hits) lastPlace = Math.max(lastPlace, place.get(hit.id) ?? count);
    // Rows the codes cannot tell apart (equal codes, or the same direction at another length)
    // may be cut anywhere among them: the candidates must end beyond them, nearer ones all in.
    const clearOfTies = lastPlace < count && distances[count - 1] > distances[lastPlace];
    if (hits.length === k && count - lastPlace >= margin / 2 && clearOfTies) return hitDetails(statements, hits);
    const share = passing.length / count;
    wanted = Math.max(2 * count, share > 0 ? Math.ceil(k / share + margin) : 8 * count);
  }
}

/** The scan's order (sqlite-ranking.ts): SQL's `order by distance, c.id` on the same numbers. */
function byDistanceThenId(a: RankedChunk, b: RankedChunk): number {
  return a.distance - b.distance || a.id - b.id;
}
