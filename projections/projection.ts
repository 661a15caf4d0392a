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
}

export function defineProjection(projection: Projection): Projection {
  return projection;
}
