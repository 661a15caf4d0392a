import type { AppConfig } from '../../app/config.js';
import { CohereAnswerer } from './cohere.js';
import { ExtractiveAnswerer } from './extractive.js';
import type { Answerer } from './port.js';

/** Cohere chat when COHERE_API_KEY is set, the extractive answerer otherwise. */
export function createAnswerer(config: AppConfig): Answerer {
  return config.cohereApiKey ? new CohereAnswerer(config.cohereApiKey) : new ExtractiveAnswerer();
}
