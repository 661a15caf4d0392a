import type { AppConfig } from '../config.js';
import { ExtractiveAnswerer } from './extractive.js';
import type { Embedder } from '../embedder/port.js';
import type { Answerer } from './port.js';

/**
 * Cohere chat when COHERE_API_KEY is set (its client imported only then), the extractive
 * answerer otherwise, which ranks sentences with the embedder retrieval uses (and its cache).
 */
export async function createAnswerer(config: AppConfig, embedder: Embedder): Promise<Answerer> {
  if (!config.cohere) return new ExtractiveAnswerer(embedder);
  const [{ CohereAnswerer }, { cohereClient }] = await Promise.all([
    import('./cohere.js'),
    import('../embedder/cohere.js'),
  ]);
  return new CohereAnswerer(cohereClient(config.cohere));
}
