import type { AppConfig } from '../../app/config.js';
import { ElasticsearchVectorIndex } from './elasticsearch.js';
import { MemoryVectorIndex } from './memory.js';
import type { VectorIndex } from './port.js';

/** The embedded exact index unless ELASTICSEARCH_URL is set. */
export function createVectorIndex(config: AppConfig): VectorIndex {
  return config.elasticsearchUrl ? new ElasticsearchVectorIndex(config.elasticsearchUrl) : new MemoryVectorIndex();
}
