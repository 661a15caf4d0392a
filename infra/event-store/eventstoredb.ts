import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  convertToCommandError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { DependencyUnavailableError, VersionConflictError } from '../errors.js';
import { checked } from '../checked-json.js';
import {
  EventMetadataSchema,
  type AllEventsHandler,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type StoredEvent,
  type Subscription,
} from './port.js';

const DEPENDENCY = 'EventStoreDB';
const PAGE_SIZE = 500;
const BATCH_SIZE = 1000;
const RETRY_PAUSE_MS = 500;
/** gRPC's INVALID_ARGUMENT: a server's answer to a read of $all from a position inside a record. */
const INVALID_ARGUMENT = 3;
/**
 * The stream whose metadata holds the log's identity (EventStore.identity): the stream itself
 * stays empty, and its metadata, kept in the server's `$$` stream, is a system event that no
 * read of the log (readAll, subscribeToAll, countEvents) returns.
 */
const IDENTITY_STREAM = 'collections-log-identity';
const IDENTITY_KEY = 'logIdentity';
/** Servers before 22.6 answer stream reads with this commit position: "not known here". */
const UNKNOWN_COMMIT = 2n ** 64n - 1n;

type RecordedEvent = NonNullable<AllStreamResolvedEvent['event']> | NonNullable<ResolvedEvent['event']>;

/** System streams ($stats, $settings, metadata $$x) and system events ($>, $metadata) are the server's own. */
function isSystem(event: RecordedEvent): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

/** The port's position is the $all commit position: a byte offset, unique per event and increasing. */
function toPortPosition(position: Position | undefined): number {
  if (!position || position.commit >= UNKNOWN_COMMIT) return 0;
  return Number(position.commit);
}

function toReadPosition(after: number): ReadPosition {
  if (after <= 0) return START;
  const at = BigInt(after);
  return { commit: at, prepare: at };
}

/** Metadata is written by this adapter as JSON, which the client hands back parsed: checked, the server being outside the process. */
function metadataOf(event: RecordedEvent): EventMetadata {
  const metadata = checked(EventMetadataSchema, event.metadata);
  if (metadata.ok) return metadata.value;
  throw new TypeError(
    `EventStoreDB event log: the metadata of ${event.streamId} revision ${event.revision} is not an event's (${metadata.problem}).`,
  );
}

function toStored(event: RecordedEvent): StoredEvent {
  return {
    streamId: event.streamId,
    streamVersion: Number(event.revision) + 1,
    position: toPortPosition(event.position),
    type: event.type,
    data: event.data,
    metadata: metadataOf(event),
  };
}

function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 0) return NO_STREAM;
  return BigInt(expected - 1);
}

/** Batch appends reject with the raw gRPC error, so it is converted before looking at its type. */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const type = (convertToCommandError(error) as { type?: unknown }).type;
  return type === 'unavailable' || type === 'deadline-exceeded' || type === 'timeout' || type === 'not-leader';
}

/** The client hands the server's InvalidPosition over as an UnknownError keeping the gRPC code. */
function isInvalidPosition(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === INVALID_ARGUMENT;
}

/** Translates the client's errors into the project's own at the adapter boundary. */
function translate(error: unknown, streamId: string, expected: ExpectedVersion): Error {
  if (error instanceof WrongExpectedVersionError) {
    const actual = error.actualVersion === NO_STREAM ? 0 : Number(error.actualVersion) + 1;
    return new VersionConflictError(streamId, expected, Number.isFinite(actual) ? actual : 0);
  }
  if (isConnectionFailure(error)) return new DependencyUnavailableError(DEPENDENCY);
  return error instanceof Error ? error : new Error(String(error));
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isConnectionFailure(error)) throw new DependencyUnavailableError(DEPENDENCY);
    throw error;
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The production event store on EventStoreDB / KurrentDB. Stream versions are the server's
 * revisions plus one; global positions are $all commit positions (byte offsets in the server's
 * log). readAll and subscribeToAll read from `after` itself when it is an event's position (0 and
 * every position this store hands out); any other number is inside a record, which the server
 * refuses to read from, so they first scan $all for the newest event at or before it.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<Subscription>();
  private identityRead: Promise<string> | null = null;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) {
      const last = await this.readLastEvent(streamId);
      return { streamVersion: last?.streamVersion ?? 0, position: await this.lastPosition() };
    }
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((event) =>
          jsonEvent({
            type: event.type,
            // Event data is whatever JSON the deciders produce; the client only needs it serialisable.
            data: event.data as JSONType,
            metadata: event.metadata,
          }),
        ),
        { expectedRevision: toExpectedRevision(expected) },
      );
      const position = result.position ? toPortPosition(result.position) : await this.lastPosition();
      return { streamVersion: Number(result.nextExpectedRevision) + 1, position };
    } catch (error) {
      throw translate(error, streamId, expected);
    }
  }

  async readStream(streamId: string): Promise<StoredEvent[]> {
    return this.collectStream(streamId, FORWARDS, undefined);
  }

  async readLastEvent(streamId: string): Promise<StoredEvent | null> {
    const [last] = await this.collectStream(streamId, BACKWARDS, 1);
    return last ?? null;
  }

  private async collectStream(
    streamId: string,
    direction: typeof FORWARDS | typeof BACKWARDS,
    maxCount: number | undefined,
  ): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction,
        fromRevision: direction === FORWARDS ? START : END,
        ...(maxCount !== undefined ? { maxCount } : {}),
      });
      for await (const resolved of read) {
        if (resolved.event) out.push(toStored(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translate(error, streamId, 'any');
    }
    return out;
  }

  /** Pages through $all because system events count against the server's maxCount. */
  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    // At least one more than asked (a read from a position starts with the event at it), and not
    // tiny, since the server's own events ($stats and the like) share the pages.
    const pageSize = Math.min(PAGE_SIZE, Math.max(limit + 1, 100));
    let from = toReadPosition(after);
    let floor = after;
    let first = true;
    while (out.length < limit) {
      let seen = 0;
      let lastCommit: Position | undefined;
      const page: StoredEvent[] = [];
      try {
        await guard(async () => {
          for await (const resolved of this.client.readAll({
            fromPosition: from,
            direction: FORWARDS,
            maxCount: pageSize,
          })) {
            seen += 1;
            const event = resolved.event;
            if (!event) continue;
            lastCommit = event.position;
            if (isSystem(event) || toPortPosition(event.position) <= floor) continue;
            page.push(toStored(event));
          }
        });
      } catch (error) {
        if (!first || !isInvalidPosition(error)) throw error;
        first = false;
        from = await this.positionAtOrBefore(after);
        continue;
      }
      first = false;
      out.push(...page.slice(0, limit - out.length));
      if (seen < pageSize || !lastCommit) break;
      // The next page starts at the last event read; the floor drops that repeat.
      from = lastCommit;
      floor = Math.max(floor, toPortPosition(lastCommit));
    }
    return out;
  }

  /** The position of the newest event at or before `after` (START if none): a position the server reads from. */
  private async positionAtOrBefore(after: number): Promise<ReadPosition> {
    const bound = BigInt(after);
    let found: ReadPosition = START;
    let from: ReadPosition = START;
    for (;;) {
      let seen = 0;
      let passed = false;
      let last: Position | undefined;
      await guard(async () => {
        for await (const resolved of this.client.readAll({
          fromPosition: from,
          direction: FORWARDS,
          maxCount: PAGE_SIZE,
        })) {
          seen += 1;
          const position = resolved.event?.position;
          if (!position) continue;
          last = position;
          if (position.commit <= bound) found = position;
          else passed = true;
        }
      });
      if (passed || seen < PAGE_SIZE || !last) return found;
      from = last;
    }
  }

  async lastPosition(): Promise<number> {
    let from: ReadPosition = END;
    for (;;) {
      let seen = 0;
      let oldest: Position | undefined;
      let found = 0;
      await guard(async () => {
        for await (const resolved of this.client.readAll({
          fromPosition: from,
          direction: BACKWARDS,
          maxCount: PAGE_SIZE,
        })) {
          seen += 1;
          const event = resolved.event;
          if (!event) continue;
          oldest = event.position;
          if (found === 0 && !isSystem(event)) found = toPortPosition(event.position);
        }
      });
      if (found > 0) return found;
      if (seen < PAGE_SIZE || !oldest) return 0;
      from = oldest;
    }
  }

  /** A full scan of $all: meant for progress bars and checks, not for hot paths. */
  async countEvents(): Promise<number> {
    let count = 0;
    await guard(async () => {
      for await (const resolved of this.client.readAll({ fromPosition: START, direction: FORWARDS })) {
        if (resolved.event && !isSystem(resolved.event)) count += 1;
      }
    });
    return count;
  }

  /**
   * Made by the first call on a log that has none: the metadata is written only where the
   * metadata stream does not exist yet, so processes that ask at once agree on the first one.
   */
  identity(): Promise<string> {
    this.identityRead ??= (async () => {
      const found = await this.readIdentity();
      if (found) return found;
      try {
        await this.client.setStreamMetadata(
          IDENTITY_STREAM,
          { [IDENTITY_KEY]: randomUUID() },
          { expectedRevision: NO_STREAM },
        );
      } catch (error) {
        // Another process wrote it first: its id is the log's.
        if (!(error instanceof WrongExpectedVersionError)) throw translate(error, `$$${IDENTITY_STREAM}`, 0);
      }
      const written = await this.readIdentity();
      if (!written) throw new TypeError(`EventStoreDB event log: no identity in the metadata of ${IDENTITY_STREAM}.`);
      return written;
    })().catch((error: unknown) => {
      this.identityRead = null;
      throw error;
    });
    return this.identityRead;
  }

  private async readIdentity(): Promise<string | null> {
    const { metadata } = await guard(() => this.client.getStreamMetadata(IDENTITY_STREAM));
    const id = metadata?.[IDENTITY_KEY];
    return typeof id === 'string' && id !== '' ? id : null;
  }

  /**
   * A catch-up subscription to $all without system events, handing the handler every event that
   * is already buffered as one batch. A failing handler or a dropped connection restarts the
   * subscription from the last handled position after a pause, so nothing is skipped.
   */
  subscribeToAll(after: number, handler: AllEventsHandler): Subscription {
    let position = after;
    // Set when `position` is not an event's (the server refuses it): an event's at or before it.
    let readFrom: ReadPosition | null = null;
    let stopped = false;
    let current: AllStreamSubscription | null = null;

    const runOnce = async (): Promise<void> => {
      const subscription = this.client.subscribeToAll({
        fromPosition: readFrom ?? toReadPosition(position),
        filter: excludeSystemEvents(),
      });
      current = subscription;
      try {
        for await (const first of subscription) {
          if (stopped) break;
          const batch: AllStreamResolvedEvent[] = [first];
          let next: AllStreamResolvedEvent | null;
          while (batch.length < BATCH_SIZE && (next = subscription.read() as AllStreamResolvedEvent | null) !== null) {
            batch.push(next);
          }
          const events = batch
            .map((resolved) => resolved.event)
            .filter((event): event is NonNullable<typeof event> => !!event && !isSystem(event))
            .map(toStored)
            .filter((event) => event.position > position);
          if (events.length === 0) continue;
          await handler(events);
          position = events[events.length - 1].position;
          readFrom = null;
        }
      } catch (error) {
        if (isInvalidPosition(error) && readFrom === null) readFrom = await this.positionAtOrBefore(position);
        throw error;
      } finally {
        current = null;
        await subscription.unsubscribe().catch(() => undefined);
      }
    };

    const loop = (async () => {
      while (!stopped) {
        try {
          await runOnce();
        } catch {
          // The handler failed or the connection dropped: retry from the last handled position.
        }
        if (!stopped) await pause(RETRY_PAUSE_MS);
      }
    })();

    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        this.subscriptions.delete(subscription);
        await (current as AllStreamSubscription | null)?.unsubscribe().catch(() => undefined);
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }
}
