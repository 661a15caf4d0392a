import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DatabaseAdded, DatabaseFields, DatabaseUpdated } from '../../contracts/directory/events.js';
import { isAccess, isHandle, requireHandle, requireText } from '../../contracts/directory/values.js';
import { LIMITS } from '../../contracts/directory/fields.js';
import { isHttpUrl } from '../../infra/net/origin.js';
import { changedKeys, patched } from '../decider-rules.js';

export interface DatabaseState {
  handle: string;
  fields: DatabaseFields | null;
}

export type AddDatabase = DomainCommand<'AddDatabase', { handle: string; fields: DatabaseFields }>;
/** Only the keys present change. */
export type UpdateDatabase = DomainCommand<'UpdateDatabase', { patch: Partial<DatabaseFields> }>;
export type DatabaseCommand = AddDatabase | UpdateDatabase;
export type DatabaseEvent = DatabaseAdded | DatabaseUpdated;

function requireHandles(values: string[], field: string): void {
  if (values.some((v) => !isHandle(v))) throw ValidationError.field(field, 'Every entry must be a handle.');
}

/** A database's own rules; that its subjects and types exist is checked by the handler against read models. */
export function checkDatabase(fields: DatabaseFields): void {
  requireText(fields.name, 'name', LIMITS.databaseName);
  if (fields.description.length > LIMITS.description)
    throw ValidationError.field('description', `Must be at most ${LIMITS.description} characters.`);
  if (!isHttpUrl(fields.url)) throw ValidationError.field('url', 'Must be an http(s) URL.');
  if (!isAccess(fields.access))
    throw ValidationError.field('access', 'access must be one of open, subscription, trial, restricted.');
  requireHandles(fields.subjects, 'subjects');
  requireHandles(fields.types, 'types');
  if (fields.audience.some((a) => typeof a !== 'string' || !a.trim() || a.length > LIMITS.audience)) {
    throw ValidationError.field(
      'audience',
      `Every entry must be a non-empty text of at most ${LIMITS.audience} characters.`,
    );
  }
}

const unique = (values: string[]) => [...new Set(values)];

function normalized(fields: DatabaseFields): DatabaseFields {
  return {
    ...fields,
    subjects: unique(fields.subjects),
    types: unique(fields.types),
    audience: unique(fields.audience),
  };
}

function add({ data }: AddDatabase, state: DatabaseState): DatabaseEvent[] {
  if (state.fields) throw new ConflictError(`Database "${data.handle}" already exists.`);
  requireHandle(data.handle, 'handle');
  const fields = normalized(data.fields);
  checkDatabase(fields);
  return [{ type: 'DatabaseAdded', data: { handle: data.handle, fields } }];
}

/** Nothing is recorded when nothing changes. */
function update({ data }: UpdateDatabase, state: DatabaseState): DatabaseEvent[] {
  if (!state.fields) throw new NotFoundError('Database not found.');
  const fields = normalized(patched(state.fields, data.patch));
  checkDatabase(fields);
  const changed = changedKeys(state.fields, fields);
  if (changed.length === 0) return [];
  return [{ type: 'DatabaseUpdated', data: { handle: state.handle, fields, changed } }];
}

export const databaseDecider: Decider<DatabaseState, DatabaseCommand, DatabaseEvent> = {
  initialState: () => ({ handle: '', fields: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'DatabaseAdded':
      case 'DatabaseUpdated':
        return { handle: event.data.handle, fields: event.data.fields };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'AddDatabase':
        return add(command, state);
      case 'UpdateDatabase':
        return update(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
