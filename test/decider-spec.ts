import type { Test } from 'tap';
import type { Decider, DomainCommand } from '../commands/decider.js';
import type { DomainEvent } from '../contracts/domain-event.js';

type Assert = Pick<Test, 'same' | 'throws'>;

/**
 * Emmett-style decider tests: given(events).when(command).then(t, expectedEvents) or
 * .thenThrows(t, ErrorClass). Pure: no store, no clock.
 */
export function deciderSpec<State, Command extends DomainCommand, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
) {
  return {
    given(events: Event[]) {
      const state = events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
      return {
        when(command: Command) {
          return {
            then(t: Assert, expected: Event[], message?: string) {
              t.same(
                decider.decide(command, state),
                expected,
                message ?? `${command.type} decides ${expected.map((e) => e.type).join(', ') || 'nothing'}`,
              );
            },
            thenThrows(t: Assert, error: new (...args: never[]) => Error, message?: string) {
              t.throws(
                () => decider.decide(command, state),
                error,
                message ?? `${command.type} is refused with ${error.name}`,
              );
            },
          };
        },
      };
    },
  };
}
