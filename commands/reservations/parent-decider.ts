import { ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DomainEvent } from '../../contracts/domain-event.js';

/**
 * A parent (a site, a blog category) as its children's writes see it. A child's create (or a
 * move to this parent) first appends an "attached" event to the parent's stream at the version
 * it read, and the parent's delete appends at its version too: of a racing attach and delete,
 * the event store takes one, and the other is decided again against fresh state. So an attach
 * never lands after the delete, and the delete's cascade finds every child attached before it
 * in the parent's own stream.
 *
 * Only the last event matters (a delete is final, and any other event means the parent is
 * there), so the handler folds that one alone and an attach costs the same for a parent with
 * ten thousand children as for one with none.
 */
export interface ParentState {
  status: 'absent' | 'live' | 'gone';
}

export type AttachChild = DomainCommand<'AttachChild', { attached: DomainEvent }>;

/** The parent does not exist or was deleted; the handler turns it into the child's own refusal (a 422). */
export class ParentGoneError extends ValidationError {
  constructor() {
    super('The parent does not exist.');
  }
}

/** The child's attached event goes to the parent's stream, only while the parent is there. */
function attach({ data }: AttachChild, state: ParentState): DomainEvent[] {
  if (state.status !== 'live') throw new ParentGoneError();
  return [data.attached];
}

/** `goneTypes`: the parent's events after which it is gone (its deletion). */
export function parentDecider(goneTypes: readonly string[]): Decider<ParentState, AttachChild, DomainEvent> {
  return {
    initialState: () => ({ status: 'absent' }),
    // Any event but a deletion means the parent is there: the types are the parent's, not listed here.
    evolve: (_state, event) => ({ status: goneTypes.includes(event.type) ? 'gone' : 'live' }),
    decide(command, state) {
      switch (command.type) {
        case 'AttachChild':
          return attach(command, state);
        default: {
          const _exhaustive: never = command.type;
          return [];
        }
      }
    },
  };
}
