import { Type, type Static } from '@sinclair/typebox';
import type { StorageFailure } from '../storage-errors.js';

/**
 * Who did it, when, and for which request: carried by every event. A schema, so an adapter that
 * reads events from outside the process (a server's log, a Kafka topic, a backup archive) checks
 * them with it (Value.Check) rather than casting.
 */
export const EventMetadataSchema = Type.Object({
  userId: Type.Union([Type.Number(), Type.Null()]),
  at: Type.String(),
  requestId: Type.Optional(Type.String()),
});
export type EventMetadata = Static<typeof EventMetadataSchema>;

export interface NewEvent {
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/**
 * An event as the log holds it: `streamVersion` is the 1-based position of the event inside its
 * stream, `position` its global, strictly increasing position in the whole log.
 */
export const StoredEventSchema = Type.Object({
  streamId: Type.String(),
  streamVersion: Type.Integer(),
  position: Type.Integer(),
  type: Type.String(),
  data: Type.Unknown(),
  metadata: EventMetadataSchema,
});
export type StoredEvent = Static<typeof StoredEventSchema>;

/** The number of events the stream must hold right now (0: it must not exist), or 'any'. */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  streamVersion: number;
  position: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

export type AllEventsHandler = (events: StoredEvent[]) => Promise<void>;

/**
 * The source of truth. append is atomic per call and fails with VersionConflictError when the
 * stream does not hold the expected number of events.
 */
export interface EventStore {
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  readStream(streamId: string): Promise<StoredEvent[]>;
  readLastEvent(streamId: string): Promise<StoredEvent | null>;
  /** Events with position strictly greater than `after`, oldest first. */
  readAll(after: number, limit: number): Promise<StoredEvent[]>;
  /** Position of the newest event, 0 for an empty store. */
  lastPosition(): Promise<number>;
  countEvents(): Promise<number>;
  /**
   * The log's identity: a random id made once with the log and kept in its own storage, the same
   * from every process and across restarts, different for any other log. What is built from the
   * log (read models, the vector index) records it, and a start refuses a log that is not theirs
   * (infra/log-identity.ts).
   */
  identity(): Promise<string>;
  /** Calls the handler with every batch of events after `after`, then with new ones as they are appended. */
  subscribeToAll(after: number, handler: AllEventsHandler): Subscription;
  /**
   * The last append refused for the store's own storage (a full disk), until one succeeds:
   * /health reports it. Optional: a store on a server of its own (EventStoreDB) has none.
   */
  storageFailure?(): StorageFailure | null;
  close(): Promise<void>;
}
