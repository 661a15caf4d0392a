import { VersionConflictError } from '../infra/errors.js';
import type { EventMetadata, EventStore } from '../infra/event-store/port.js';
import { metadataFor, type CommandContext } from './command-context.js';

/**
 * Integer ids come from a sequence per resource type kept in the event store itself (stream
 * `sequence-{type}`, events IdAllocated), so they survive restarts and replays.
 */
const streamFor = (resourceType: string) => `sequence-${resourceType}`;

/** Every id up to `id` is taken; `from` is the first id this event took (absent in older logs). */
interface IdAllocatedData {
  id: number;
  from?: number;
}

/** The last id of a sequence and its stream version, as this process last knew them. */
interface SequenceState {
  lastId: number;
  version: number;
}

/** One caller waiting for an id: `choose` picks it from the last id taken (null: nothing to take). */
interface Claim {
  choose(last: number): number | null;
  metadata: EventMetadata;
  resolve(id: number): void;
  reject(error: unknown): void;
}

const MAX_ATTEMPTS = 20;

/**
 * One sequence stream in one process. Claims are served in batches: the first claim is
 * appended at once, and every claim that arrives while an append is in flight waits for the
 * next one, which takes all their ids in a single IdAllocated event. Under concurrent creates
 * that is one append per batch instead of one per id, and the ids stay gapless and in claim
 * order. The state is trusted between appends: another process appending to the sequence (the
 * import CLI) makes the append fail with a version conflict, and the batch is then retried
 * from the log as it is.
 */
class SequenceAllocator {
  private state: SequenceState | null = null;
  private waiting: Claim[] = [];
  private draining = false;

  constructor(
    private readonly store: EventStore,
    private readonly stream: string,
  ) {}

  claim(choose: Claim['choose'], metadata: EventMetadata): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.waiting.push({ choose, metadata, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        await this.serve(batch);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Takes the ids of a batch in one append; settles every claim of it, never throws. */
  private async serve(batch: Claim[]): Promise<void> {
    let lastError: unknown = null;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        this.state ??= await this.readState();
        const state = this.state;
        let last = state.lastId;
        const ids = batch.map((claim) => {
          const id = claim.choose(last);
          if (id === null) return last;
          last = id;
          return id;
        });
        if (last !== state.lastId) {
          const data: IdAllocatedData = { id: last, from: state.lastId + 1 };
          const result = await this.store.append(this.stream, [{ type: 'IdAllocated', data, metadata: batch[0].metadata }], state.version);
          this.state = { lastId: last, version: result.streamVersion };
        }
        batch.forEach((claim, i) => claim.resolve(ids[i]));
        return;
      } catch (error) {
        // Whatever failed, the state is read again from the log before anything else is claimed.
        this.state = null;
        lastError = error;
        if (!(error instanceof VersionConflictError)) break;
      }
    }
    for (const claim of batch) claim.reject(lastError ?? new VersionConflictError(this.stream, 'any', -1));
  }

  private async readState(): Promise<SequenceState> {
    const last = await this.store.readLastEvent(this.stream);
    return { lastId: last ? (last.data as IdAllocatedData).id : 0, version: last ? last.streamVersion : 0 };
  }
}

const allocators = new WeakMap<EventStore, Map<string, SequenceAllocator>>();

function allocatorFor(store: EventStore, resourceType: string): SequenceAllocator {
  let byStream = allocators.get(store);
  if (!byStream) {
    byStream = new Map();
    allocators.set(store, byStream);
  }
  const stream = streamFor(resourceType);
  let allocator = byStream.get(stream);
  if (!allocator) {
    allocator = new SequenceAllocator(store, stream);
    byStream.set(stream, allocator);
  }
  return allocator;
}

export function nextId(ctx: CommandContext, resourceType: string): Promise<number> {
  return allocatorFor(ctx.eventStore, resourceType).claim((last) => last + 1, metadataFor(ctx));
}

/** Records an id given from outside (fixture import) so later ids never collide with it. */
export async function reserveId(ctx: CommandContext, resourceType: string, id: number): Promise<void> {
  await allocatorFor(ctx.eventStore, resourceType).claim((last) => (id > last ? id : null), metadataFor(ctx));
}

/** The id to use for a create: the given one (reserved) or the next in sequence. */
export async function idFor(ctx: CommandContext, resourceType: string, given?: number): Promise<number> {
  if (given === undefined) return nextId(ctx, resourceType);
  await reserveId(ctx, resourceType, given);
  return given;
}
