import { VersionConflictError } from '../infra/errors.js';
import type { EventMetadata, EventStore } from '../infra/event-store/port.js';
import { metadataFor, type CommandContext } from './command-context.js';
import type { DomainEvent } from '../contracts/domain-event.js';
import { toDomainEvents } from './handle-command.js';

/**
 * Integer ids come from a sequence per resource type kept in the event store itself (stream
 * `sequence-{type}`), so they survive restarts and replays.
 */
const streamFor = (resourceType: string) => `sequence-${resourceType}`;

/**
 * Ids a process takes ahead of need under concurrent plain next-id claims, as PostgreSQL logs
 * sequence values 32 at a time: a create then needs no commit of its own for its id, only one
 * in RESERVE does. Claims made one at a time take none, so their ids stay gapless whatever
 * happens. What a process reserved and did not use is given back when it closes; a crash (or a
 * backup taken meanwhile, restored) leaves it unused, a gap in the ids.
 */
export const RESERVE = 32;

/** Every id up to `id` is taken (or reserved by the process that wrote it); `from` is the first id this event took (absent in older logs). */
interface IdAllocatedData {
  id: number;
  from?: number;
}

/** A closing process gives back its unused reserve: every id after `id` is free again. */
interface IdsReleasedData {
  id: number;
}

/** What a sequence's stream holds. */
type SequenceEvent = DomainEvent<'IdAllocated', IdAllocatedData> | DomainEvent<'IdsReleased', IdsReleasedData>;

/** The sequence as this process last knew it. */
interface SequenceState {
  /** The last id taken, here or (as far as the log said) elsewhere. */
  lastId: number;
  /** The log holds every id up to this one as taken: ids after lastId up to here are this process's to give. */
  recordedThrough: number;
  /** The stream version that recorded them. */
  version: number;
}

/** One caller waiting for an id: `choose` picks it from the last id taken (null: nothing to take). */
interface Claim {
  choose(last: number): number | null;
  /** A plain next id, which may take a reserve; an id given from outside records only itself. */
  reserves: boolean;
  /** Made only when the claim's batch appends: most claims are served from the reserve. */
  metadata(): EventMetadata;
  resolve(id: number): void;
  reject(error: unknown): void;
}

const MAX_ATTEMPTS = 20;

/**
 * One sequence stream in one process. Claims are served in batches: the first claim is
 * served at once, and every claim that arrives while an append is in flight waits for the
 * next batch. An id within what the log already holds as this process's is given without an
 * append; otherwise one IdAllocated event records every id of the batch and, when several
 * claims queued and one is a plain next-id claim, a reserve of RESERVE ids after them. Ids are
 * given in claim order. The state is trusted between appends: another process appending to the
 * sequence (the import CLI) makes the next append fail with a version conflict, and the batch
 * is then retried from the log as it is. One case a reserve cannot see: an import giving an
 * id inside a running server's reserve records nothing (the log already holds it as taken), so
 * the server's create that later draws that id is refused as a conflict (409) rather than
 * given the next one.
 */
class SequenceAllocator {
  private state: SequenceState | null = null;
  private waiting: Claim[] = [];
  private draining = false;

  constructor(
    private readonly store: EventStore,
    private readonly stream: string,
  ) {}

  claim(choose: Claim['choose'], reserves: boolean, metadata: () => EventMetadata): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.waiting.push({ choose, reserves, metadata, resolve, reject });
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

  /** Takes the ids of a batch, in one append at most; settles every claim of it, never throws. */
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
        if (last > state.recordedThrough) {
          // Claims that queued behind an allocation in flight show concurrent creates: reserve for the next ones.
          const through = batch.length > 1 && batch.some((claim) => claim.reserves) ? last + RESERVE : last;
          const data: IdAllocatedData = { id: through, from: state.recordedThrough + 1 };
          const result = await this.store.append(
            this.stream,
            [{ type: 'IdAllocated', data, metadata: batch[0].metadata() }],
            state.version,
          );
          this.state = { lastId: last, recordedThrough: through, version: result.streamVersion };
        } else {
          state.lastId = last;
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
    const lastId = last ? toDomainEvents<SequenceEvent>([last])[0].data.id : 0;
    return { lastId, recordedThrough: lastId, version: last ? last.streamVersion : 0 };
  }

  /**
   * Gives back the reserve this process did not use, so the next process goes on from the last
   * id taken. Only if the log is as this process left it: after another process's append, the
   * ids it holds are not this one's to give back, and they stay unused.
   */
  async release(metadata: EventMetadata): Promise<void> {
    while (this.draining) await new Promise((resolve) => setImmediate(resolve));
    const state = this.state;
    if (!state || state.recordedThrough === state.lastId) return;
    this.state = null;
    const data: IdsReleasedData = { id: state.lastId };
    try {
      await this.store.append(this.stream, [{ type: 'IdsReleased', data, metadata }], state.version);
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
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
  return allocatorFor(ctx.eventStore, resourceType).claim(
    (last) => last + 1,
    true,
    () => metadataFor(ctx),
  );
}

/** Records an id given from outside (fixture import) so later ids never collide with it. */
export async function reserveId(ctx: CommandContext, resourceType: string, id: number): Promise<void> {
  await allocatorFor(ctx.eventStore, resourceType).claim(
    (last) => (id > last ? id : null),
    false,
    () => metadataFor(ctx),
  );
}

/**
 * The ids a list of creates would take one after another, in one claim (one IdAllocated event
 * at most): a given id is kept (and moves the sequence past it), a missing one is the next
 * after the highest so far. An importer takes them first, so its creates, given these ids,
 * append nothing to the sequence and may run concurrently without changing which id each gets.
 */
export async function idsInOrder(
  ctx: CommandContext,
  resourceType: string,
  given: readonly (number | undefined)[],
): Promise<number[]> {
  let ids: number[] = [];
  // Called again with the log's last id if the append meets a conflict: the ids are worked out afresh.
  const choose = (last: number): number | null => {
    ids = [];
    let at = last;
    for (const id of given) {
      if (id === undefined) ids.push(++at);
      else {
        if (id > at) at = id;
        ids.push(id);
      }
    }
    return at > last ? at : null;
  };
  await allocatorFor(ctx.eventStore, resourceType).claim(choose, false, () => metadataFor(ctx));
  return ids;
}

/** The id to use for a create: the given one (reserved) or the next in sequence. */
export async function idFor(ctx: CommandContext, resourceType: string, given?: number): Promise<number> {
  if (given === undefined) return nextId(ctx, resourceType);
  await reserveId(ctx, resourceType, given);
  return given;
}

/**
 * Gives back the ids this process reserved and did not use, on every sequence of the store;
 * called as the process closes, before the store.
 */
export async function releaseReservedIds(store: EventStore, metadata: EventMetadata): Promise<void> {
  for (const allocator of allocators.get(store)?.values() ?? []) await allocator.release(metadata);
}
