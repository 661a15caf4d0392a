import type { ChatbotQueryPorts } from '../../queries/chatbot/services.js';
import type { IndexScheduler } from './index-queue.js';

/**
 * The chatbot's ports for one runtime, built once by the chatbot module (app/modules/chatbot.ts)
 * and handed to its routes, workers and projection listener. They read a port from this object
 * on every use, so a test may swap one (e.g. a failing vector index) after the app is built,
 * through `runtime.module(chatbotModule).services`.
 */
export interface ChatbotServices extends ChatbotQueryPorts {
  indexing: IndexScheduler;
  /** Jobs that replace a resource's stand-in vectors with the model's (EMBED_QUEUE). */
  embedding: IndexScheduler;
}
