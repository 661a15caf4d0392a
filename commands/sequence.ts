import { VersionConflictError } from '../infra/errors.js';
import { metadataFor, type CommandContext } from './command-context.js';

/**
 * Integer ids come from a sequence per resource type kept in the event store itself (stream
 * `sequence-{type}`, events IdAllocated), so they survive restarts and replays.
 */
const streamFor = (resourceType: string) => `sequence-${resourceType}`;

interface IdAllocatedData {
  id: number;
}

/**
 * The tail of the allocations running per event store and sequence. Concurrent commands of
 * one process take their turn instead of racing: racing, all but one lose the append with a
 * version conflict and retry, which under ten concurrent creates cost most of their time.
 * Other processes (the import CLI) can still race; the conflict retry below covers them.
 */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

function inTurn<T>(ctx: CommandContext, stream: string, work: () => Promise<T>): Promise<T> {
  let perStore = queues.get(ctx.eventStore);
  if (!perStore) {
    perStore = new Map();
    queues.set(ctx.eventStore, perStore);
  }
  const previous = perStore.get(stream) ?? Promise.resolve();
  const result = previous.then(work, work);
  const tail = result.catch(() => undefined);
  perStore.set(stream, tail);
  void tail.then(() => {
    if (perStore.get(stream) === tail) perStore.delete(stream);
  });
  return result;
}

function allocate(ctx: CommandContext, resourceType: string, choose: (last: number) => number | null): Promise<number> {
  return inTurn(ctx, streamFor(resourceType), () => allocateNow(ctx, resourceType, choose));
}

async function allocateNow(ctx: CommandContext, resourceType: string, choose: (last: number) => number | null): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const last = await ctx.eventStore.readLastEvent(streamFor(resourceType));
    const lastId = last ? (last.data as IdAllocatedData).id : 0;
    const id = choose(lastId);
    if (id === null) return lastId;
    try {
      await ctx.eventStore.append(
        streamFor(resourceType),
        [{ type: 'IdAllocated', data: { id } satisfies IdAllocatedData, metadata: metadataFor(ctx) }],
        last ? last.streamVersion : 0,
      );
      return id;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  throw new VersionConflictError(streamFor(resourceType), 'any', -1);
}

export function nextId(ctx: CommandContext, resourceType: string): Promise<number> {
  return allocate(ctx, resourceType, (last) => last + 1);
}

/** Records an id given from outside (fixture import) so later ids never collide with it. */
export async function reserveId(ctx: CommandContext, resourceType: string, id: number): Promise<void> {
  await allocate(ctx, resourceType, (last) => (id > last ? id : null));
}

/** The id to use for a create: the given one (reserved) or the next in sequence. */
export async function idFor(ctx: CommandContext, resourceType: string, given?: number): Promise<number> {
  if (given === undefined) return nextId(ctx, resourceType);
  await reserveId(ctx, resourceType, given);
  return given;
}
