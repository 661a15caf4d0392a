import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../../app/config.js';
import { MemoryVectorIndex } from './memory.js';
import type { VectorIndex } from './port.js';

/**
 * The embedded exact index unless ELASTICSEARCH_URL is set (its client is imported only then);
 * the embedded index keeps its full-precision vectors in a file under the data directory.
 */
export async function createVectorIndex(config: AppConfig): Promise<VectorIndex> {
  if (config.elasticsearchUrl) return new (await import('./elasticsearch.js')).ElasticsearchVectorIndex(config.elasticsearchUrl);
  const directory = join(config.dataDir, 'vector-index');
  mkdirSync(directory, { recursive: true });
  return new MemoryVectorIndex({ directory });
}
