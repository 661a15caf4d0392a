import type { estypes } from '@elastic/elasticsearch';

export const MODEL_FIELD = { type: 'keyword' } as const;

/** titleKey(title) (port.ts), matched whole by `titled`. */
export const TITLE_KEY_FIELD = { type: 'keyword' } as const;

/**
 * Above the templates an operator may have for every index (`*`, priority 0 or 1): Elasticsearch
 * refuses two overlapping templates of one priority.
 */
export const TEMPLATE_PRIORITY = 200;

/** The mappings of the chunks' index, for vectors of one dimension. */
export function chunkMappings(dimension: number): estypes.MappingTypeMapping {
  return {
    properties: {
      resource_key: { type: 'keyword' },
      resource_type: { type: 'keyword' },
      resource_id: { type: 'integer' },
      title: { type: 'text' },
      title_key: TITLE_KEY_FIELD,
      path: { type: 'keyword', index: false },
      text: { type: 'text' },
      chunk_index: { type: 'integer' },
      site_ids: { type: 'integer' },
      item_set_ids: { type: 'integer' },
      model: MODEL_FIELD,
      // `flat`: every allowed chunk compared with the query at full precision, as the port
      // promises (exact cosine, the embedded index's ranking). Elasticsearch's default,
      // int8_hnsw, quantizes the vectors (distances off by about 1e-3) and walks a graph
      // (neighbours can be missed).
      vector: {
        type: 'dense_vector',
        dims: dimension,
        index: true,
        similarity: 'cosine',
        index_options: { type: 'flat' },
      },
    },
  };
}
