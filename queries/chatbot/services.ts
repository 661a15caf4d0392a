import type { Answerer } from '../../infra/answerer/port.js';
import type { Embedder } from '../../infra/embedder/port.js';
import type { VectorIndex } from '../../infra/vector-index/port.js';
import type { IndexScheduler } from '../../workers/chatbot/index-queue.js';
import type { PatronQuestions } from './questions.js';

/**
 * The chatbot's ports for one runtime, built once by the chatbot module (app/modules/chatbot.ts)
 * and handed to its routes, workers and projection listener. They read a port from this object
 * on every use, so a test may swap one (e.g. a failing vector index) after the app is built,
 * through `runtime.module(chatbotModule).services`.
 */
export interface ChatbotServices {
  embedder: Embedder;
  vectorIndex: VectorIndex;
  answerer: Answerer;
  indexing: IndexScheduler;
  /** Jobs that replace a resource's stand-in vectors with the model's (EMBED_QUEUE). */
  embedding: IndexScheduler;
  /** What patrons asked: recorded by the chat, listed and summarised for librarians. */
  questions: PatronQuestions;
}
