import type { Answerer } from '../../infra/answerer/port.js';
import type { Embedder } from '../../infra/embedder/port.js';
import type { IndexModels } from '../../infra/vector-index/index-models.js';
import type { VectorIndex } from '../../infra/vector-index/port.js';
import type { PatronQuestions } from './questions.js';
import type { CollectionReading } from './reading-progress.js';

/**
 * The ports the chatbot's queries read: search, chat and the question log. The module's whole
 * set of services (workers/chatbot/services.ts) adds the indexing queues to these. Queries read a
 * port from this object on every use, so a test may swap one after the app is built.
 */
export interface ChatbotQueryPorts {
  embedder: Embedder;
  vectorIndex: VectorIndex;
  /** The earlier models the index still holds chunks of, searched too until the collection is read again. */
  indexModels: IndexModels;
  answerer: Answerer;
  /** What patrons asked: recorded by the chat, listed and summarised for librarians. */
  questions: PatronQuestions;
  /** Whether the collection is still being read: a chat answer then says so (`still_reading`). */
  reading: CollectionReading;
}
