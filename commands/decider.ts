import type { DomainEvent } from '../contracts/domain-event.js';

export interface DomainCommand<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/**
 * Emmett-style decider: pure functions, no I/O. decide throws a domain error (ValidationError,
 * NotFoundError, ...) to refuse a command.
 */
export interface Decider<State, Command extends DomainCommand, Event extends DomainEvent> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

export function foldEvents<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, DomainCommand, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState());
}
