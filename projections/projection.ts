import type { DocumentStore } from '../infra/document-store/port.js';
import type { StoredEvent } from '../infra/event-store/port.js';

/**
 * A read model's fold: which event types it handles and how each changes its documents.
 * apply must be idempotent (an event may be delivered twice) and should write whole
 * documents or absolute values rather than increments.
 */
export interface Projection {
  name: string;
  handles: readonly string[];
  apply(event: StoredEvent, documents: DocumentStore): Promise<void>;
  /**
   * The collections of a projection whose documents are not only a fold of the log but state
   * about something outside the read models (the chatbot's index outbox: work the vector index
   * is owed). A rebuild keeps them and the projection's checkpoint: replaying would only mark
   * every resource owed again. (`npm run reindex` is what rebuilds the vector index.)
   */
  keptByRebuild?: readonly string[];
}

export function defineProjection(projection: Projection): Projection {
  return projection;
}
