import type { Embedder } from '../../infra/embedder/port.js';
import type { SearchFilter, VectorHit, VectorIndex } from '../../infra/vector-index/port.js';
import { embedWithTitles } from './title-match.js';

/** Chunks fetched per search: the seed's 100, or 150 when a site filter narrows them. */
export function fetchLimit(filter: SearchFilter): number {
  return filter.siteId !== undefined ? 150 : 100;
}

/** The public path of a resource, under `/s/{site_slug}` when one is given. */
export function publicUrl(path: string, siteSlug?: string): string {
  return siteSlug ? `/s/${encodeURIComponent(siteSlug)}${path}` : path;
}

/** The first `length` characters (not UTF-16 units, so no emoji is cut in half). */
export function snippet(text: string, length: number): string {
  const chars = [...text];
  return chars.length <= length ? text : chars.slice(0, length).join('');
}

export interface RetrievedResource {
  best: VectorHit;
  url: string;
}

/**
 * Embeds the text as a query, fetches the nearest chunks of its model the filter allows and the
 * resources whose title the text names (at the distance of their title, title-match.ts), and
 * keeps one entry per resource URL with its best (nearest) hit, nearest first. While the index
 * still holds chunks of an earlier model (`indexModels`, after an upgrade), those are searched
 * too, with the query vectors the embedder has for them (their words): a resource not yet read
 * again by the new model is still found.
 */
export async function retrieve(
  deps: { embedder: Embedder; vectorIndex: VectorIndex; indexModels?: { readonly searched: readonly string[] } },
  { text, filter, siteSlug }: { text: string; filter: SearchFilter; siteSlug?: string },
): Promise<RetrievedResource[]> {
  // Only chunks embedded by the query's model are comparable with it.
  const scope: SearchFilter = { siteId: filter.siteId, itemSetIds: filter.itemSetIds, model: deps.embedder.model };
  const earlier = (deps.indexModels?.searched ?? []).flatMap((model) => {
    const vector = deps.embedder.legacyQuery?.(model, [text])?.[0];
    return vector ? [{ vector, scope: { ...scope, model } }] : [];
  });
  const limit = fetchLimit(filter);
  const { vector, titleHits } = await embedWithTitles(deps, {
    query: text,
    limit,
    filters: [scope, ...earlier.map((other) => other.scope)],
  });
  const hits = (
    await Promise.all([
      deps.vectorIndex.search(vector, limit, scope),
      ...earlier.map((other) => deps.vectorIndex.search(other.vector, limit, other.scope)),
    ])
  ).flat();
  const byUrl = new Map<string, RetrievedResource>();
  for (const hit of [...hits, ...titleHits].sort((a, b) => a.distance - b.distance)) {
    const url = publicUrl(hit.path, siteSlug);
    if (!byUrl.has(url)) byUrl.set(url, { best: hit, url });
  }
  return [...byUrl.values()];
}
