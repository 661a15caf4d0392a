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

/** The last id of a sequence and its stream version, as this process last knew them. */
interface SequenceState {
  lastId: number;
  version: number;
}

/**
 * Known sequence states per event store. An allocation claims the next id from this state
 * synchronously and appends its IdAllocated with the matching expected version, so concurrent
 * creates of one process never race each other and their appends land in one group commit
 * instead of taking turns (a turn per id cost a commit per id). Another process appending to
 * the sequence (the import CLI) makes the append fail with a version conflict: the state is
 * then forgotten, read again from the log, and the allocation retried.
 */
const known = new WeakMap<object, Map<string, Promise<SequenceState>>>();

function statesOf(ctx: CommandContext): Map<string, Promise<SequenceState>> {
  let states = known.get(ctx.eventStore);
  if (!states) {
    states = new Map();
    known.set(ctx.eventStore, states);
  }
  return states;
}

function stateOf(ctx: CommandContext, stream: string): Promise<SequenceState> {
  const states = statesOf(ctx);
  let state = states.get(stream);
  if (!state) {
    state = ctx.eventStore.readLastEvent(stream).then((last) => ({ lastId: last ? (last.data as IdAllocatedData).id : 0, version: last ? last.streamVersion : 0 }));
    states.set(stream, state);
    // A failed read is not remembered.
    state.catch(() => {
      if (states.get(stream) === state) states.delete(stream);
    });
  }
  return state;
}

function forget(ctx: CommandContext, stream: string, state: Promise<SequenceState>): void {
  const states = statesOf(ctx);
  if (states.get(stream) === state) states.delete(stream);
}

async function allocate(ctx: CommandContext, resourceType: string, choose: (last: number) => number | null): Promise<number> {
  const stream = streamFor(resourceType);
  for (let attempt = 0; attempt < 20; attempt++) {
    const pending = stateOf(ctx, stream);
    const state = await pending;
    const id = choose(state.lastId);
    if (id === null) return state.lastId;
    // Claimed before any await, so the next allocation of this process builds on it.
    const expected = state.version;
    state.lastId = id;
    state.version = expected + 1;
    try {
      await ctx.eventStore.append(stream, [{ type: 'IdAllocated', data: { id } satisfies IdAllocatedData, metadata: metadataFor(ctx) }], expected);
      return id;
    } catch (error) {
      forget(ctx, stream, pending);
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  throw new VersionConflictError(stream, 'any', -1);
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
