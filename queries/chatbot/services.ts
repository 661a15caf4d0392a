import type { Runtime } from '../../app/kernel.js';
import type { Answerer } from '../../infra/answerer/port.js';
import type { Embedder } from '../../infra/embedder/port.js';
import type { VectorIndex } from '../../infra/vector-index/port.js';
import type { IndexScheduler } from '../../workers/chatbot/index-queue.js';

/**
 * The chatbot's ports for one runtime. Tests may swap one (e.g. a failing vector index)
 * after the app is built; routes and workers look them up on every use.
 */
export interface ChatbotServices {
  embedder: Embedder;
  vectorIndex: VectorIndex;
  answerer: Answerer;
  indexing: IndexScheduler;
  /** Jobs that replace a resource's stand-in vectors with the model's (EMBED_QUEUE). */
  embedding: IndexScheduler;
}

const registry = new WeakMap<Runtime, ChatbotServices>();

export function registerChatbotServices(runtime: Runtime, services: ChatbotServices): void {
  registry.set(runtime, services);
}

export function chatbotServices(runtime: Runtime): ChatbotServices {
  const services = registry.get(runtime);
  if (!services) throw new Error('The chatbot module was not initialised on this runtime.');
  return services;
}
