import type { AppConfig } from '../../infra/config.js';
import { answers } from './probe.js';

/** A health check every few seconds must not become a stream of calls to a paid API. */
const REMEMBER_MS = 30_000;

let remembered: { key: string; reachable: boolean; at: number } | null = null;

/**
 * Whether Cohere answers with this key: its check-api-key call, which embeds nothing and costs
 * nothing. The client is imported only here and only when COHERE_API_KEY is set.
 */
export async function cohereReachable(config: AppConfig, now = Date.now()): Promise<boolean> {
  const key = config.cohereApiKey as string;
  if (remembered && remembered.key === key && now - remembered.at < REMEMBER_MS) return remembered.reachable;
  const reachable = await answers(async () => {
    const { CohereClient } = await import('cohere-ai');
    const result = await new CohereClient({ token: key }).checkApiKey({ timeoutInSeconds: 1, maxRetries: 0 });
    if (!result.valid) throw new Error('The Cohere API key is not valid.');
  }, 2000);
  remembered = { key, reachable, at: now };
  return reachable;
}
