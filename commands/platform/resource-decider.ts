import type { AppError } from '../../infra/errors.js';
import type { DomainEvent } from '../decider.js';
import {
  lifecycleDecider,
  type LifecycleCommand,
  type LifecycleDecider,
  type LifecycleEvent,
  type LifecycleState,
} from '../lifecycle-decider.js';

/**
 * Host platform resources (sites, item sets, items, media, site pages) share one life cycle:
 * created with all their fields, updated to a new full set of fields, deleted. Each event
 * carries the complete fields, so a reader of one event knows the resource as it then was.
 * It is the generic one (commands/lifecycle-decider.ts) with the platform's names: commands
 * `Create`, `Update`, `Delete`, `ParentDeleted`; events `<Kind>Created` and so on.
 */
export interface ResourceNames<Kind extends string> {
  create: 'Create';
  update: 'Update';
  delete: 'Delete';
  parentDeleted: 'ParentDeleted';
  created: `${Kind}Created`;
  updated: `${Kind}Updated`;
  deleted: `${Kind}Deleted`;
  withdrawn: `${Kind}Withdrawn`;
  detached: `${Kind}Detached`;
}

/** Kind is the resource's event prefix (`SitePage`); left as string, the types cover every kind. */
export interface ResourceTypes<Fields extends object, Kind extends string = string> {
  fields: Fields;
  names: ResourceNames<Kind>;
  context: Record<never, never>;
  layout: 'nested';
  changes: true;
  deleted: Record<never, never>;
}

export type ResourceEvent<Fields extends object, Kind extends string = string> = LifecycleEvent<ResourceTypes<Fields, Kind>>;
export type ResourceCommand<Fields extends object, Kind extends string = string> = LifecycleCommand<ResourceTypes<Fields, Kind>>;
export type ResourceState<Fields> = LifecycleState<Fields>;
export type ResourceDecider<Fields extends object, Kind extends string = string> = LifecycleDecider<ResourceTypes<Fields, Kind>>;

export interface ResourceEventNames {
  created: string;
  updated: string;
  deleted: string;
  withdrawn: string;
  detached: string;
}

export function resourceNames<Kind extends string>(kind: Kind): ResourceNames<Kind> {
  return {
    create: 'Create',
    update: 'Update',
    delete: 'Delete',
    parentDeleted: 'ParentDeleted',
    created: `${kind}Created`,
    updated: `${kind}Updated`,
    deleted: `${kind}Deleted`,
    withdrawn: `${kind}Withdrawn`,
    detached: `${kind}Detached`,
  };
}

export function resourceEventNames(kind: string): ResourceEventNames {
  const { created, updated, deleted, withdrawn, detached } = resourceNames(kind);
  return { created, updated, deleted, withdrawn, detached };
}

/** A kind whose records belong to a parent (a site page to its site). */
export interface ParentRule<Fields> {
  /** The field holding the parent's id. */
  field: keyof Fields;
  /** The refusal of a create whose parent is gone (the same 422 as the read-model check's). */
  refuse(): AppError;
}

/**
 * Builds the decider of one resource kind. `check` enforces the kind's own rules on a full set
 * of fields and throws ValidationError; rules that need other resources are checked by the
 * handlers before the command. `extraEvolve` folds events of the kind's stream that are not
 * its life cycle's (a page's revert, written by page version history).
 */
export function resourceDecider<Fields extends object, Kind extends string = string>(
  kind: Kind,
  label: string,
  check: (fields: Fields) => void,
  extraEvolve?: (state: ResourceState<Fields>, event: DomainEvent) => ResourceState<Fields>,
  parent?: ParentRule<Fields>,
): ResourceDecider<Fields, Kind> {
  const lifecycle = lifecycleDecider<Fields>()({
    names: resourceNames(kind),
    label,
    check,
    changedKeys: true,
    parent: parent && { field: parent.field, refuse: () => parent.refuse() },
  });
  if (!extraEvolve) return lifecycle;
  return {
    ...lifecycle,
    // A stream may hold events of another module (typed by that module), so the type is not a guard here.
    evolve: (state, event) => (lifecycle.handles(event.type) ? lifecycle.evolve(state, event) : extraEvolve(state, event)),
  };
}
