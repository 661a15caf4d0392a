import { ConflictError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { LibraryListDefined } from '../../contracts/directory/events.js';
import { isHandle, requireHandle, requireText } from '../../contracts/directory/values.js';
import { LIMITS, type ListFields } from '../../contracts/directory/fields.js';

export interface ListState {
  defined: boolean;
}

/** A curated list: its databases in the order given. */
export type DefineList = DomainCommand<'DefineList', ListFields>;

function define({ data }: DefineList, state: ListState): LibraryListDefined[] {
  if (state.defined) throw new ConflictError(`List "${data.handle}" already exists.`);
  requireHandle(data.handle, 'handle');
  requireText(data.name, 'name', LIMITS.termName);
  const { databases } = data;
  if (databases.some((d) => !isHandle(d)))
    throw ValidationError.field('databases', 'Every entry must be a database handle.');
  if (new Set(databases).size !== databases.length)
    throw ValidationError.field('databases', 'A database appears twice.');
  return [{ type: 'LibraryListDefined', data: { ...data } }];
}

export const listDecider: Decider<ListState, DefineList, LibraryListDefined> = {
  initialState: () => ({ defined: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'LibraryListDefined':
        return { defined: true };
      default: {
        const _exhaustive: never = event.type;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'DefineList':
        return define(command, state);
      default: {
        const _exhaustive: never = command.type;
        return [];
      }
    }
  },
};
