import { join } from 'node:path';
import type { AppConfig } from '../../app/config.js';
import { CachedEmbedder } from './cached.js';
import { CohereEmbedder } from './cohere.js';
import { LocalEmbedder } from './local.js';
import type { Embedder } from './port.js';

export function embeddingCacheFile(config: AppConfig): string {
  return join(config.dataDir, 'embeddings.sqlite');
}

/** Cohere when COHERE_API_KEY is set, the local hashed embedder otherwise; cached either way. */
export function createEmbedder(config: AppConfig): CachedEmbedder {
  const inner: Embedder = config.cohereApiKey ? new CohereEmbedder(config.cohereApiKey) : new LocalEmbedder();
  return new CachedEmbedder(inner, embeddingCacheFile(config));
}
