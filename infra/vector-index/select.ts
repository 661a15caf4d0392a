import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../config.js';
import type { VectorIndex } from './port.js';
import { SqliteVectorIndex } from './sqlite.js';

/** The embedded index's file: its own, beside the read models, so a restart searches at once. */
export function vectorIndexFile(config: AppConfig): string {
  return join(config.dataDir, 'vector-index.sqlite');
}

/** The embedded index (sqlite-vec, in `vectorIndexFile`) unless ELASTICSEARCH_URL is set (in ELASTICSEARCH_INDEX) (its client is imported only then). */
export async function createVectorIndex(config: AppConfig): Promise<VectorIndex> {
  if (config.elasticsearchUrl)
    return new (await import('./elasticsearch.js')).ElasticsearchVectorIndex(
      config.elasticsearchUrl,
      config.elasticsearchIndex,
    );
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteVectorIndex(vectorIndexFile(config), { readInBackground: true });
}
