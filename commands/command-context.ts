import type { Clock } from '../infra/clock/port.js';
import type { EventMetadata, EventStore } from '../infra/event-store/port.js';
import type { DocumentStore } from '../infra/document-store/port.js';
import type { KeyedExclusion } from './keyed-exclusion.js';
import type { SlugClaims } from './slug-claims.js';

/** Everything a command handler may touch: the store, the clock, who asks, and how to wait for read models. */
export interface CommandContext {
  eventStore: EventStore;
  /** Read models, for set-wide checks (unique slugs) a single stream cannot answer. */
  documents: DocumentStore;
  clock: Clock;
  userId: number | null;
  requestId?: string;
  /** Resolves once every projection has applied the log up to this position. */
  waitForProjections(position: number): Promise<void>;
  /** One per process: commands that check and then write shared state take turns on its key (tags, the folder tree). */
  exclusive: KeyedExclusion;
  /** One per process: slugs chosen by commands in flight (posts, categories). */
  slugClaims: SlugClaims;
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
