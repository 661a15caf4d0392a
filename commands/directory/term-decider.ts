import { ConflictError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DatabaseTypeDefined, SubjectDefined } from './events.js';
import { requireHandle, requireText } from './values.js';

/** Subjects and database types are both handle + name terms, defined once. */
export interface TermState {
  defined: boolean;
}

export type DefineTerm = DomainCommand<'DefineTerm', { handle: string; name: string }>;

function termDecider<Event extends SubjectDefined | DatabaseTypeDefined>(
  eventType: Event['type'],
  label: string,
): Decider<TermState, DefineTerm, Event> {
  return {
    initialState: () => ({ defined: false }),
    evolve: (state, event) => (event.type === eventType ? { defined: true } : state),
    decide(command, state) {
      switch (command.type) {
        case 'DefineTerm': {
          if (state.defined) throw new ConflictError(`${label} "${command.data.handle}" already exists.`);
          requireHandle(command.data.handle, 'handle');
          requireText(command.data.name, 'name', 200);
          return [{ type: eventType, data: { handle: command.data.handle, name: command.data.name } } as Event];
        }
        default: {
          const _exhaustive: never = command.type;
          return [];
        }
      }
    },
  };
}

export const subjectDecider = termDecider<SubjectDefined>('SubjectDefined', 'Subject');
export const databaseTypeDecider = termDecider<DatabaseTypeDefined>('DatabaseTypeDefined', 'Type');
