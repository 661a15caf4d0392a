import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand, DomainEvent } from '../decider.js';
import { definedKeys } from '../defined-keys.js';

/**
 * Host platform resources (sites, item sets, items, media, site pages) share one life cycle:
 * created with all their fields, updated to a new full set of fields, deleted. Each event
 * carries the complete fields, so a reader of one event knows the resource as it then was.
 */
export type ResourceCreated<Fields> = DomainEvent<string, { id: number; fields: Fields }>;
export type ResourceUpdated<Fields> = DomainEvent<string, { id: number; fields: Fields; changed: string[] }>;
export type ResourceDeleted = DomainEvent<string, { id: number }>;
export type ResourceEvent<Fields> = ResourceCreated<Fields> | ResourceUpdated<Fields> | ResourceDeleted;

export type CreateResource<Fields> = DomainCommand<'Create', { id: number; fields: Fields }>;
/** Only the keys present in patch change (PATCH semantics; PUT sends them all). */
export type UpdateResource<Fields> = DomainCommand<'Update', { patch: Partial<Fields> }>;
export type DeleteResource = DomainCommand<'Delete', Record<string, never>>;
export type ResourceCommand<Fields> = CreateResource<Fields> | UpdateResource<Fields> | DeleteResource;

export interface ResourceState<Fields> {
  id: number;
  status: 'new' | 'live' | 'deleted';
  fields: Fields | null;
}

export interface ResourceEventNames {
  created: string;
  updated: string;
  deleted: string;
}

export function resourceEventNames(kind: string): ResourceEventNames {
  return { created: `${kind}Created`, updated: `${kind}Updated`, deleted: `${kind}Deleted` };
}

function changedKeys<Fields extends object>(before: Fields, after: Fields): string[] {
  return Object.keys(after).filter(
    (key) => JSON.stringify((before as Record<string, unknown>)[key]) !== JSON.stringify((after as Record<string, unknown>)[key]),
  );
}

/**
 * Builds the decider of one resource kind. `check` enforces the kind's own rules on a full set
 * of fields and throws ValidationError; rules that need other resources are checked by the
 * handlers before the command.
 */
export function resourceDecider<Fields extends object>(
  kind: string,
  label: string,
  check: (fields: Fields) => void,
  extraEvolve?: (state: ResourceState<Fields>, event: DomainEvent) => ResourceState<Fields>,
): Decider<ResourceState<Fields>, ResourceCommand<Fields>, ResourceEvent<Fields>> {
  const names = resourceEventNames(kind);
  return {
    initialState: () => ({ id: 0, status: 'new', fields: null }),
    evolve(state, event) {
      if (event.type === names.created || event.type === names.updated) {
        const data = event.data as { id: number; fields: Fields };
        return { id: data.id, status: 'live', fields: data.fields };
      }
      if (event.type === names.deleted) return { ...state, status: 'deleted' };
      return extraEvolve ? extraEvolve(state, event) : state;
    },
    decide(command, state) {
      switch (command.type) {
        case 'Create':
          if (state.status !== 'new') throw new ConflictError(`${label} ${command.data.id} already exists.`);
          check(command.data.fields);
          return [{ type: names.created, data: { id: command.data.id, fields: command.data.fields } }];
        case 'Update':
          if (state.status !== 'live' || !state.fields) throw new NotFoundError(`${label} not found.`);
          {
            const fields = { ...state.fields, ...definedKeys(command.data.patch) };
            check(fields);
            return [{ type: names.updated, data: { id: state.id, fields, changed: changedKeys(state.fields, fields) } }];
          }
        case 'Delete':
          if (state.status !== 'live') throw new NotFoundError(`${label} not found.`);
          return [{ type: names.deleted, data: { id: state.id } }];
        default: {
          const _exhaustive: never = command;
          return [];
        }
      }
    },
  };
}
