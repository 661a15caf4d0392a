import { resourceEventNames, type ResourceEvent } from '../../contracts/platform/events.js';
import type { AppError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DomainEvent } from '../../contracts/domain-event.js';
import {
  changedKeys,
  deletedRecord,
  liveRecord,
  mustExist,
  mustNotExist,
  newRecord,
  patched,
  withdrawnRecord,
  type RecordState,
} from '../decider-rules.js';

/**
 * Host platform resources (sites, item sets, items, media, site pages) share one life cycle:
 * created with all their fields, updated to a new full set of fields, deleted. Each event
 * carries the complete fields, so a reader of one event knows the resource as it then was.
 * The commands are the same for every kind; the events are named after the kind
 * (`SitePageCreated`), so `Kind` is the kind's event prefix, left as string to cover every kind.
 * The events' types are contracts (contracts/platform/events.ts): the read models fold them too.
 */
export type ResourceState<Fields> = RecordState<Fields>;

export type CreateResource<Fields> = DomainCommand<'Create', { id: number; fields: Fields }>;
/** Only the keys present in the patch change (PATCH semantics; PUT sends them all). */
export type UpdateResource<Fields> = DomainCommand<'Update', { patch: Partial<Fields> }>;
export type DeleteResource = DomainCommand<'Delete', Record<string, never>>;
/**
 * The cascade of a parent's delete (a site's, for its pages), for a child the parent's stream
 * lists as attached. Its append moves the child's stream on, so a write of the child that
 * attached before the delete and is not written yet conflicts, and is decided again against a
 * parent that is gone.
 */
export type ParentDeleted = DomainCommand<'ParentDeleted', { id: number; parent_id: number }>;
export type ResourceCommand<Fields> = CreateResource<Fields> | UpdateResource<Fields> | DeleteResource | ParentDeleted;

/** A kind whose records belong to a parent (a site page to its site). */
export interface ParentRule<Fields> {
  /** The field holding the parent's id: a record in the deleted parent is deleted with it. */
  field: keyof Fields;
  /** The refusal of a create whose parent is gone (the same 422 as the read-model check's). */
  refuse(): AppError;
}

export interface ResourceKind<Fields, Kind extends string, Other extends DomainEvent = never> {
  /** The events' prefix: `SitePage`. */
  kind: Kind;
  /** Names the record in refusals: "Site page 3 already exists.", "Site page not found.". */
  label: string;
  /**
   * The kind's own rules on a full set of fields; throws ValidationError. Rules that need other
   * resources are checked by the handlers before the command.
   */
  check(fields: Fields): void;
  parent?: ParentRule<Fields>;
  /** Folds the events of the kind's stream that are not its life cycle's (`Other`: a page's revert, written by page version history). */
  evolveOther?(state: ResourceState<Fields>, event: Other): ResourceState<Fields>;
}

/**
 * A kind's decider: it decides its life cycle's events, and its evolve also folds `Other`, the
 * events another module appends to the kind's streams (a site page's SitePageReverted).
 */
export interface ResourceDecider<Fields, Kind extends string, Other extends DomainEvent> extends Decider<
  ResourceState<Fields>,
  ResourceCommand<Fields>,
  ResourceEvent<Fields, Kind>
> {
  evolve(state: ResourceState<Fields>, event: ResourceEvent<Fields, Kind> | Other): ResourceState<Fields>;
}

/** The decider of one resource kind. */
export function resourceDecider<
  Fields extends object,
  Kind extends string = string,
  Other extends DomainEvent = never,
>({
  kind,
  label,
  check,
  parent,
  evolveOther,
}: ResourceKind<Fields, Kind, Other>): ResourceDecider<Fields, Kind, Other> {
  const names = resourceEventNames(kind);
  const ownNames: ReadonlySet<string> = new Set(Object.values(names));
  /** The kind's own events are told from the others its streams hold (`Other`) by their names. */
  const isOwn = (event: ResourceEvent<Fields, Kind> | Other): event is ResourceEvent<Fields, Kind> =>
    ownNames.has(event.type);

  function create({ data }: CreateResource<Fields>, state: ResourceState<Fields>): ResourceEvent<Fields, Kind>[] {
    if (state.status === 'withdrawn' && parent) throw parent.refuse();
    mustNotExist(state, label, data.id);
    check(data.fields);
    return [{ type: names.created, data: { id: data.id, fields: data.fields } }];
  }

  function update({ data }: UpdateResource<Fields>, state: ResourceState<Fields>): ResourceEvent<Fields, Kind>[] {
    const before = mustExist(state, label);
    const fields = patched(before, data.patch);
    check(fields);
    return [{ type: names.updated, data: { id: state.id, fields, changed: changedKeys(before, fields) } }];
  }

  function remove(state: ResourceState<Fields>): ResourceEvent<Fields, Kind>[] {
    mustExist(state, label);
    return [{ type: names.deleted, data: { id: state.id } }];
  }

  /**
   * A record in the deleted parent is deleted with it; one not written yet never will be; one
   * that attached to it and has since left (or was moving to it) only records that it was told.
   * A kind without a parent rule is never deleted so.
   */
  function parentDeleted({ data }: ParentDeleted, state: ResourceState<Fields>): ResourceEvent<Fields, Kind>[] {
    const { parent_id } = data;
    if (state.status === 'new') return [{ type: names.withdrawn, data: { id: data.id, parent_id } }];
    if (state.status !== 'live' || !state.fields) return [];
    if (parent && state.fields[parent.field] === parent_id) return remove(state);
    return [{ type: names.detached, data: { id: state.id, parent_id } }];
  }

  return {
    initialState: () => newRecord(),

    evolve(state, event) {
      // A stream may hold events of another module (typed by that module, `Other`).
      if (!isOwn(event)) return evolveOther ? evolveOther(state, event) : state;
      // The names are built from the kind, so a case does not narrow the event: the created and
      // updated events are told by the fields they carry.
      switch (event.type) {
        case names.created:
        case names.updated:
          return 'fields' in event.data ? liveRecord(event.data.id, event.data.fields) : state;
        case names.deleted:
          return deletedRecord(state);
        case names.withdrawn:
          return withdrawnRecord(state, event.data.id);
        case names.detached:
          return state;
        default:
          return state;
      }
    },

    decide(command, state) {
      switch (command.type) {
        case 'Create':
          return create(command, state);
        case 'Update':
          return update(command, state);
        case 'Delete':
          return remove(state);
        case 'ParentDeleted':
          return parentDeleted(command, state);
        default: {
          const _exhaustive: never = command;
          return [];
        }
      }
    },
  };
}
