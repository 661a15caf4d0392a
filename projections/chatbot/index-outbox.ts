import type { DocumentStore } from '../../infra/document-store/port.js';
import { resourceKey, type ResourceType } from '../../infra/vector-index/port.js';
import { defineHandlerProjection } from '../projection.js';
import { INDEXED_EVENT_TYPES, refsToReindex, type ResourceRef } from './index-jobs.js';

/**
 * A resource whose index entry may be behind its read model: marked by the event that changed
 * it, removed by the index job that brought the entry in line (workers/chatbot/worker.ts).
 */
export interface IndexOutboxDoc {
  /** resourceKey(type, id). */
  _id: string;
  type: ResourceType;
  id: number;
  /** Log position of the latest event that marked it: a job removes the mark only if no later event replaced it. */
  position: number;
  /**
   * 'embed' once the index holds the resource's current text by its words only (stand-in
   * vectors): the model's vectors are what is still owed. Absent: the index job is owed.
   */
  stage?: 'embed';
  [key: string]: unknown;
}

export const CHATBOT_INDEX_OUTBOX = 'chatbot_index_outbox';

export const indexOutbox = (d: DocumentStore) => d.collection<IndexOutboxDoc>(CHATBOT_INDEX_OUTBOX);

/** The mark a change leaves for a resource. */
export function outboxMark(ref: ResourceRef, position: number): IndexOutboxDoc {
  return { _id: resourceKey(ref.type, ref.id), type: ref.type, id: ref.id, position };
}

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
