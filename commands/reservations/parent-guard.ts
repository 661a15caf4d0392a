import { VersionConflictError, type AppError } from '../../infra/errors.js';
import { metadataFor, type CommandContext } from '../command-context.js';
import type { DomainEvent } from '../../contracts/domain-event.js';
import { toDomainEvents } from '../handle-command.js';
import { ParentGoneError, parentDecider } from './parent-decider.js';

export interface ParentGuard {
  /** The parent's stream (`site-3`). */
  stream: string;
  /** Its event types after which it is gone. */
  goneTypes: readonly string[];
  /** What the parent's stream records about the child (`SitePageAttached`). */
  attached: DomainEvent;
  /** The child's refusal when the parent is gone (the same 422 as the read-model check's). */
  refuse(): AppError;
}

/** Children attaching to one parent at once each win one round; every conflict means another moved it on. */
const MAX_ATTEMPTS = 200;

/**
 * Retries for a parent's own writes (update, delete): each child attaching moves the parent's
 * stream on and makes them conflict, and each conflict is another writer's success.
 */
export const PARENT_WRITE_RETRIES = 200;

/**
 * Appends the child's "attached" event to its parent's stream at the version of its last event,
 * or throws the guard's refusal when the parent is gone (see parent-decider.ts).
 */
export async function attachToParent(ctx: CommandContext, guard: ParentGuard): Promise<void> {
  const decider = parentDecider(guard.goneTypes);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const last = await ctx.eventStore.readLastEvent(guard.stream);
    const state = last ? decider.evolve(decider.initialState(), toDomainEvents([last])[0]) : decider.initialState();
    let events: DomainEvent[];
    try {
      events = decider.decide({ type: 'AttachChild', data: { attached: guard.attached } }, state);
    } catch (error) {
      if (error instanceof ParentGoneError) throw guard.refuse();
      throw error;
    }
    try {
      const metadata = metadataFor(ctx);
      await ctx.eventStore.append(
        guard.stream,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        last ? last.streamVersion : 0,
      );
      return;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  throw new VersionConflictError(guard.stream, 'any', -1);
}

/** The ids a parent's stream says were attached to it, in order, without repeats. */
export async function attachedChildIds(
  ctx: CommandContext,
  parentStream: string,
  attachedType: string,
): Promise<number[]> {
  const ids = new Set<number>();
  // An attached event, whichever the child kind, names the child by its id (parent-decider.ts).
  for (const event of toDomainEvents<DomainEvent<string, { id: number }>>(
    await ctx.eventStore.readStream(parentStream),
  )) {
    if (event.type === attachedType) ids.add(event.data.id);
  }
  return [...ids];
}
