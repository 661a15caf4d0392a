import type { CohereConfig } from '../../infra/config.js';
import { answers } from './probe.js';

/** A health check every few seconds must not become a stream of calls to a paid API. */
const REMEMBER_MS = 30_000;

let remembered: { config: CohereConfig; reachable: boolean; at: number } | null = null;

/**
 * Whether Cohere answers with this key: its check-api-key call, which embeds nothing and costs
 * nothing. The client is imported only here and only when COHERE_API_KEY is set.
 */
export async function cohereReachable(config: CohereConfig, now = Date.now()): Promise<boolean> {
  if (remembered?.config === config && now - remembered.at < REMEMBER_MS) return remembered.reachable;
  const reachable = await answers(async () => {
    const { cohereClient } = await import('../../infra/embedder/cohere.js');
    const result = await cohereClient(config).checkApiKey({ timeoutInSeconds: 1, maxRetries: 0 });
    if (!result.valid) throw new Error('The Cohere API key is not valid.');
  }, 2000);
  remembered = { config, reachable, at: now };
  return reachable;
}
