import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { DomainEvent } from '../contracts/domain-event.js';
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

/** What each request's data must hold: anyone may append to the stream, so it is checked, not trusted. */
const RetryData = Type.Object({ projection: Type.String() });
const SkipData = Type.Object({ projection: Type.String(), position: Type.Integer({ exclusiveMinimum: 0 }) });

/** The request an event of the control stream carries, or null for anything malformed (never thrown on). */
export function controlRequest(event: StoredEvent): ProjectionControlEvent | null {
  if (event.streamId !== PROJECTIONS_CONTROL_STREAM) return null;
  const data = event.data;
  if (event.type === 'ProjectionRetryRequested' && Value.Check(RetryData, data))
    return { type: event.type, data: { projection: data.projection } };
  if (event.type === 'ProjectionSkipRequested' && Value.Check(SkipData, data)) {
    return { type: event.type, data: { projection: data.projection, position: data.position } };
  }
  return null;
}
