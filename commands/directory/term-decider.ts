import { ConflictError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DomainEvent } from '../../contracts/domain-event.js';
import type { DatabaseTypeDefined, SubjectDefined } from '../../contracts/directory/events.js';
import { requireHandle, requireText } from '../../contracts/directory/values.js';
import { LIMITS, type TermFields } from '../../contracts/directory/fields.js';

/** Subjects and database types are both handle + name terms, defined once. */
export interface TermState {
  defined: boolean;
}

export type DefineTerm = DomainCommand<'DefineTerm', TermFields>;

type TermDefined<Type extends TermEventType> = DomainEvent<Type, TermFields>;
type TermEventType = SubjectDefined['type'] | DatabaseTypeDefined['type'];

function termDecider<Type extends TermEventType>(
  eventType: Type,
  label: string,
): Decider<TermState, DefineTerm, TermDefined<Type>> {
  function define({ data }: DefineTerm, state: TermState): TermDefined<Type>[] {
    if (state.defined) throw new ConflictError(`${label} "${data.handle}" already exists.`);
    requireHandle(data.handle, 'handle');
    requireText(data.name, 'name', LIMITS.termName);
    return [{ type: eventType, data: { handle: data.handle, name: data.name } }];
  }

  return {
    initialState: () => ({ defined: false }),
    // The stream holds only this term's defined event.
    evolve: (state, event) => (event.type === eventType ? { defined: true } : state),
    decide(command, state) {
      switch (command.type) {
        case 'DefineTerm':
          return define(command, state);
        default: {
          const _exhaustive: never = command.type;
          return [];
        }
      }
    },
  };
}

export const subjectDecider = termDecider('SubjectDefined', 'Subject');
export const databaseTypeDecider = termDecider('DatabaseTypeDefined', 'Type');
