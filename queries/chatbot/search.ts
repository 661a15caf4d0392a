import type { ChatbotQueryPorts } from './services.js';
import { retrieve, snippet } from './retrieve.js';

export interface SearchParams {
  query: string;
  page: number;
  perPage: number;
  siteId?: number;
  siteSlug?: string;
  itemSetIds: number[];
}

export interface SearchResult {
  resource_type: string;
  resource_id: number;
  title: string;
  url: string;
  distance: number;
  snippet: string;
}

export interface SearchResponse {
  results: SearchResult[];
  total: number;
  page: number;
  per_page: number;
}

export const SEARCH_SNIPPET_LENGTH = 300;

/** Semantic search: one result per resource URL, nearest first, paged over the fetched chunks. */
export async function searchCollection(services: ChatbotQueryPorts, params: SearchParams): Promise<SearchResponse> {
  const resources = await retrieve(services, {
    text: params.query,
    filter: { siteId: params.siteId, itemSetIds: params.itemSetIds },
    siteSlug: params.siteSlug,
  });
  const start = (params.page - 1) * params.perPage;
  return {
    results: resources.slice(start, start + params.perPage).map(({ best, url }) => ({
      resource_type: best.resourceType,
      resource_id: best.resourceId,
      title: best.title,
      url,
      distance: best.distance,
      snippet: snippet(best.text, SEARCH_SNIPPET_LENGTH),
    })),
    total: resources.length,
    page: params.page,
    per_page: params.perPage,
  };
}
