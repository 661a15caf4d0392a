import { defineHandlerProjection } from '../projection.js';
import { INDEXED_EVENT_TYPES, refsToReindex } from './index-jobs.js';
import { CHATBOT_INDEX_OUTBOX, indexOutbox, outboxMark } from '../../contracts/chatbot/documents.js';

/**
 * The index work still owed, kept in the read models rather than only in the job queue: the
 * embedded queue lives in process memory, and a CLI (import, rebuild) runs no workers. A mark
 * commits with the read model it follows (the same batch and checkpoint), so work owed when a
 * server stops, a CLI imports, or a backup snapshots the read models is found again at the
 * next start (workers/chatbot/worker.ts enqueues every mark).
 */
export const chatbotIndexOutboxProjection = defineHandlerProjection({
  name: 'chatbot-index-outbox',
  handles: [...INDEXED_EVENT_TYPES.keys()],
  // Marks are removed by index jobs, not by events: a replay would mark every resource again.
  keptByRebuild: [CHATBOT_INDEX_OUTBOX],
  // Events of several modules, named at run time (INDEXED_EVENT_TYPES): refsToReindex checks their data.
  async handle(event, documents) {
    for (const ref of await refsToReindex(event, documents))
      await indexOutbox(documents).put(outboxMark(ref, event.position));
  },
});
