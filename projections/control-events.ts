import type { DomainEvent } from '../commands/decider.js';
import type { EventMetadata, NewEvent, StoredEvent } from '../infra/event-store/port.js';

/**
 * Operator requests to the projection runner, recorded in the log itself so they reach a
 * server running in another process (and every event store and bus) the way any event does.
 */
export const PROJECTIONS_CONTROL_STREAM = 'projections';

/** Try a parked projection's failed event again (after the handler or the data was fixed). */
export type ProjectionRetryRequested = DomainEvent<'ProjectionRetryRequested', { projection: string }>;
/** Pass over one event for one projection: the position names the event the operator has seen fail. */
export type ProjectionSkipRequested = DomainEvent<'ProjectionSkipRequested', { projection: string; position: number }>;

export type ProjectionControlEvent = ProjectionRetryRequested | ProjectionSkipRequested;

export function retryRequested(projection: string, metadata: EventMetadata): NewEvent {
  return { type: 'ProjectionRetryRequested', data: { projection }, metadata };
}

export function skipRequested(projection: string, position: number, metadata: EventMetadata): NewEvent {
  return { type: 'ProjectionSkipRequested', data: { projection, position }, metadata };
}

/** The request an event of the control stream carries, or null for anything malformed (never thrown on). */
export function controlRequest(event: StoredEvent): ProjectionControlEvent | null {
  if (event.streamId !== PROJECTIONS_CONTROL_STREAM) return null;
  const data = event.data as { projection?: unknown; position?: unknown } | null;
  if (!data || typeof data.projection !== 'string') return null;
  if (event.type === 'ProjectionRetryRequested') return { type: event.type, data: { projection: data.projection } };
  if (event.type === 'ProjectionSkipRequested' && Number.isInteger(data.position) && (data.position as number) > 0) {
    return { type: event.type, data: { projection: data.projection, position: data.position as number } };
  }
  return null;
}
