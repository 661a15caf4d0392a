import type { StorageFailure } from '../storage-errors.js';

/** Who did it, when, and for which request: carried by every event. */
export interface EventMetadata {
  userId: number | null;
  at: string;
  requestId?: string;
}

export interface NewEvent {
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

export interface StoredEvent {
  streamId: string;
  /** 1-based position of the event inside its stream. */
  streamVersion: number;
  /** Global, strictly increasing position in the whole log. */
  position: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

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
  /** Calls the handler with every batch of events after `after`, then with new ones as they are appended. */
  subscribeToAll(after: number, handler: AllEventsHandler): Subscription;
  /**
   * The last append refused for the store's own storage (a full disk), until one succeeds:
   * /health reports it. Optional: a store on a server of its own (EventStoreDB) has none.
   */
  storageFailure?(): StorageFailure | null;
  close(): Promise<void>;
}
