import type { AppConfig } from '../config.js';
import { ExtractiveAnswerer } from './extractive.js';
import type { Embedder } from '../embedder/port.js';
import type { Answerer } from './port.js';

/**
 * Cohere chat when COHERE_API_KEY is set (its client imported only then), the extractive
 * answerer otherwise, which ranks sentences with the embedder retrieval uses (and its cache).
 */
export async function createAnswerer(config: AppConfig, embedder: Embedder): Promise<Answerer> {
  return config.cohereApiKey
    ? new (await import('./cohere.js')).CohereAnswerer(config.cohereApiKey)
    : new ExtractiveAnswerer(embedder);
}
