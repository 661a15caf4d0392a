import type { Clock } from '../infra/clock/port.js';
import type { SecretHasher } from '../infra/crypto/secret-hash.js';
import type { EventMetadata, EventStore } from '../infra/event-store/port.js';
import type { DocumentStore } from '../infra/document-store/port.js';

/** Everything a command handler may touch: the store, the clock, who asks, and how to wait for read models. */
export interface CommandContext {
  eventStore: EventStore;
  /** Read models, for set-wide checks (unique slugs) a single stream cannot answer; races between such checks are settled in the event store (commands/reservations). */
  documents: DocumentStore;
  clock: Clock;
  /** Hashes a password or API credential at the configured cost, for storing in an event. */
  hashSecret: SecretHasher;
  userId: number | null;
  requestId?: string;
  /** Resolves once every projection has applied the log up to this position. */
  waitForProjections(position: number): Promise<void>;
}

/** The text of the last instant stamped: writes in the same millisecond share it. */
let stampedMs = Number.NaN;
let stampedText = '';

function isoTimestamp(date: Date): string {
  const ms = date.getTime();
  if (ms !== stampedMs) {
    stampedText = date.toISOString();
    stampedMs = ms;
  }
  return stampedText;
}

export function metadataFor(ctx: CommandContext): EventMetadata {
  return { userId: ctx.userId, at: isoTimestamp(ctx.clock.now()), requestId: ctx.requestId };
}
