import { join } from 'node:path';
import type { AppConfig, CohereConfig } from '../config.js';
import { CachedEmbedder } from './cached.js';
import { HybridEmbedder } from './hybrid.js';
import { LocalEmbedder } from './local.js';
import type { Embedder } from './port.js';

export function embeddingCacheFile(config: AppConfig): string {
  return join(config.dataDir, 'embeddings.sqlite');
}

/**
 * Cohere when COHERE_API_KEY is set, the embedded sentence model with word features otherwise
 * (word features alone with CHATBOT_SENTENCE_MODEL=off); cached either way.
 * Cohere's client is imported only when configured: loading it costs tens of megabytes of RSS.
 */
export async function createEmbedder(
  config: AppConfig,
  logger: ConstructorParameters<typeof CachedEmbedder>[2] = null,
): Promise<CachedEmbedder> {
  const inner: Embedder = config.cohere
    ? await cohereEmbedder(config.cohere)
    : config.chatbotSentenceModel
      ? new HybridEmbedder()
      : new LocalEmbedder();
  return new CachedEmbedder(inner, embeddingCacheFile(config), logger);
}

async function cohereEmbedder(config: CohereConfig): Promise<Embedder> {
  const { CohereEmbedder, cohereClient } = await import('./cohere.js');
  return new CohereEmbedder(cohereClient(config));
}
