import { CohereClient, CohereError } from 'cohere-ai';
import type { CohereConfig } from '../config.js';
import { DependencyUnavailableError } from '../errors.js';
import type { Embedder, EmbedPurpose } from './port.js';

/** Cohere accepts at most 96 texts per embed call. */
const BATCH = 96;

/** Our own message for a provider failure: its status, never its payload. */
export function providerError(what: string, error: unknown): DependencyUnavailableError {
  const status = error instanceof CohereError && error.statusCode ? ` (HTTP ${error.statusCode})` : '';
  return new DependencyUnavailableError(
    'model provider',
    `The language model provider returned an error while ${what}${status}.`,
  );
}

/** The client of Cohere's API, at COHERE_BASE_URL when one is given. */
export function cohereClient({ apiKey, baseUrl }: CohereConfig): CohereClient {
  return new CohereClient({ token: apiKey, environment: baseUrl });
}

/** Cohere embeddings: `search_document` for stored chunks, `search_query` for questions. */
export class CohereEmbedder implements Embedder {
  constructor(
    private readonly client: CohereClient,
    readonly model = 'embed-multilingual-v3.0',
    readonly dimension = 1024,
  ) {}

  async embed(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      const batch = texts.slice(start, start + BATCH);
      let embeddings: number[][] | undefined;
      try {
        const response = await this.client.embed({
          texts: batch,
          model: this.model,
          inputType: purpose === 'query' ? 'search_query' : 'search_document',
          embeddingTypes: ['float'],
          truncate: 'END',
        });
        embeddings = Array.isArray(response.embeddings) ? response.embeddings : response.embeddings.float;
      } catch (error) {
        throw providerError('embedding text', error);
      }
      if (!embeddings || embeddings.length !== batch.length) {
        throw new DependencyUnavailableError('model provider', 'The language model provider returned no embeddings.');
      }
      vectors.push(...embeddings.map((e) => Float32Array.from(e)));
    }
    return vectors;
  }

  async close(): Promise<void> {}
}
