import { VersionConflictError } from '../infra/errors.js';
import type { StoredEvent } from '../infra/event-store/port.js';
import { metadataFor, type CommandContext } from './command-context.js';
import { checkPrecondition, type VersionPrecondition } from './precondition.js';
import { foldEvents, type Decider, type DomainCommand } from './decider.js';
import { type DomainEvent } from '../contracts/domain-event.js';
import { EVENT_UPCASTING } from '../contracts/upcasters.js';

export interface CommandResult<State, Event extends DomainEvent> {
  state: State;
  events: Event[];
  streamVersion: number;
  position: number;
}

/**
 * A stream's stored events as its decider's event union: the write side's one cast from a stored
 * event (the read side's is applyStored, projections/runner.ts). A stream holds what the command
 * handlers appended to it, each event with the type and data of its union. The log is taken as
 * the application's own, not as data from outside the process: an adapter reading it from another
 * server checks each event's envelope (StoredEventSchema, infra/event-store/port.ts), not its data;
 * the upcasters (contracts/upcasters.ts) bring each type's data to its current shape first.
 */
export function toDomainEvents<Event extends DomainEvent>(stored: StoredEvent[]): Event[] {
  return stored.map((e) => ({ type: e.type, data: EVENT_UPCASTING.data(e.type, e.data) }) as Event);
}

export interface HandleOptions {
  retries?: number;
  /**
   * The stream is new (its id was just taken from a sequence): decide on the initial state
   * without reading it, and append expecting it empty. Should it exist after all, the conflict
   * is retried the usual way, reading it, so the decider still refuses what it must.
   */
  newStream?: boolean;
  /**
   * Runs after each decision that writes, before its append: a guard kept on another stream
   * (attaching to a parent, commands/reservations/parent-guard.ts), which may refuse. It runs
   * again on a retry, since the retry may decide differently.
   */
  beforeAppend?: () => Promise<void>;
  /**
   * The client's If-Match: checked against the stream as read, after the decision (a missing
   * resource or a bad command keeps its own answer) and before anything is appended.
   */
  ifMatch?: VersionPrecondition;
}

/** One command on one stream: what handleCommand decides, with its options. */
export interface CommandCall<State, Command extends DomainCommand, Event extends DomainEvent> extends HandleOptions {
  stream: string;
  decider: Decider<State, Command, Event>;
  command: Command;
}

const NO_EVENTS: StoredEvent[] = [];

/**
 * Loads the stream, folds it, asks the decider, appends with the expected version, and waits
 * until the read models have the new events. A version conflict is retried with fresh state,
 * since the decider re-checks every rule against it.
 */
export async function handleCommand<State, Command extends DomainCommand, Event extends DomainEvent>(
  ctx: CommandContext,
  { stream: streamId, decider, command, ...options }: CommandCall<State, Command, Event>,
): Promise<CommandResult<State, Event>> {
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const stored = attempt === 0 && options.newStream ? NO_EVENTS : await ctx.eventStore.readStream(streamId);
    const state = foldEvents(decider, toDomainEvents<Event>(stored));
    const events = decider.decide(command, state);
    checkPrecondition(stored, options.ifMatch);
    if (events.length > 0) await options.beforeAppend?.();
    try {
      const metadata = metadataFor(ctx);
      const result = await ctx.eventStore.append(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        stored.length,
      );
      if (events.length > 0) await ctx.waitForProjections(result.position);
      return {
        state: events.reduce((s, e) => decider.evolve(s, e), state),
        events,
        streamVersion: result.streamVersion,
        position: result.position,
      };
    } catch (error) {
      if (error instanceof VersionConflictError && attempt < retries) continue;
      throw error;
    }
  }
}
