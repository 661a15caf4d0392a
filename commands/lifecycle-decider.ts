import { ConflictError, NotFoundError, type AppError } from '../infra/errors.js';
import type { Decider, DomainCommand, DomainEvent } from './decider.js';
import { definedKeys } from './defined-keys.js';

/**
 * The life cycle most records share: created with all their fields, updated by a patch, deleted;
 * and, for a record that belongs to a parent, withdrawn or detached by the parent's deletion
 * (commands/reservations/parent-decider.ts). One decider, typed by the names each resource has
 * always used on the log, so a resource's own decider composes it with its own commands and a
 * `switch` over the union of both stays exhaustive.
 */
export interface LifecycleNames {
  create: string;
  created: string;
  delete: string;
  deleted: string;
  /** Present when the resource takes the generic patch (PATCH semantics: only present keys change). */
  update?: string;
  updated?: string;
  /** Present when a parent's deletion cascades to the resource (its parent guard's cascade). */
  parentDeleted?: string;
  /** The parent was deleted after the resource attached to it and before it was written: it never will be. */
  withdrawn?: string;
  /** A parent the resource had attached to (and since left, or was moving to) was deleted: nothing changes. */
  detached?: string;
  /** The key of the parent's id in parentDeleted, withdrawn and detached; `parent_id` when absent. */
  parentKey?: string;
}

/** nested: `{id, fields: {...}}`; flat: `{id, ...fields}`, as in the resource's created events on the log. */
export type EventLayout = 'nested' | 'flat';

type NoData = Record<never, never>;

/** Every type a lifecycle decider is built from, so its commands and events can be named in one argument. */
export interface LifecycleTypes {
  fields: object;
  names: LifecycleNames;
  /** What the handler adds to create, update and parentDeleted (a clock reading): deciders read no clock. */
  context: object;
  layout: EventLayout;
  /** Whether an updated event names the keys that changed. */
  changes: boolean;
  /** What a deleted event carries besides the id. */
  deleted: object;
}

type Named<N, Key extends string> = N extends { [K in Key]: infer Name extends string } ? Name : never;
/** The member only when the resource uses the name: `DomainEvent<never, ...>` would still be a (useless) member. */
type IfNamed<N, Key extends string, Member> = N extends { [K in Key]: string } ? Member : never;
type ParentKey<N> = N extends { parentKey: infer Key extends string } ? Key : 'parent_id';
type ParentData<T extends LifecycleTypes> = { id: number } & { [K in ParentKey<T['names']>]: number };

export type CreatedData<T extends LifecycleTypes> = T['layout'] extends 'flat' ? { id: number } & T['fields'] : { id: number; fields: T['fields'] };
export type UpdatedData<T extends LifecycleTypes> = T['changes'] extends true
  ? { id: number; fields: T['fields']; changed: string[] }
  : { id: number; fields: T['fields'] };

export type LifecycleCreated<T extends LifecycleTypes> = DomainEvent<T['names']['created'], CreatedData<T>>;
export type LifecycleUpdated<T extends LifecycleTypes> = IfNamed<T['names'], 'updated', DomainEvent<Named<T['names'], 'updated'>, UpdatedData<T>>>;
export type LifecycleDeleted<T extends LifecycleTypes> = DomainEvent<T['names']['deleted'], { id: number } & T['deleted']>;
export type LifecycleWithdrawn<T extends LifecycleTypes> = IfNamed<T['names'], 'withdrawn', DomainEvent<Named<T['names'], 'withdrawn'>, ParentData<T>>>;
export type LifecycleDetached<T extends LifecycleTypes> = IfNamed<T['names'], 'detached', DomainEvent<Named<T['names'], 'detached'>, ParentData<T>>>;
/** Members whose name the resource does not use are `never`, so they drop out of the union. */
export type LifecycleEvent<T extends LifecycleTypes> =
  | LifecycleCreated<T>
  | LifecycleUpdated<T>
  | LifecycleDeleted<T>
  | LifecycleWithdrawn<T>
  | LifecycleDetached<T>;

/** A flat create carries the fields beside the id and no context (no flat resource needs one). */
export type CreateData<T extends LifecycleTypes> = T['layout'] extends 'flat' ? CreatedData<T> : CreatedData<T> & T['context'];
export type LifecycleCreate<T extends LifecycleTypes> = DomainCommand<T['names']['create'], CreateData<T>>;
/** Only the keys present in patch change (PATCH semantics; PUT sends them all). */
export type LifecycleUpdate<T extends LifecycleTypes> = IfNamed<T['names'], 'update', DomainCommand<Named<T['names'], 'update'>, { patch: Partial<T['fields']> } & T['context']>>;
export type LifecycleDelete<T extends LifecycleTypes> = DomainCommand<T['names']['delete'], Record<string, never>>;
/**
 * The cascade of a parent's delete, for a child the parent's stream lists as attached. Its append
 * moves the child's stream on, so a write of the child that attached before the delete and is
 * not written yet conflicts, and is decided again against a parent that is gone.
 */
export type LifecycleParentDeleted<T extends LifecycleTypes> = IfNamed<
  T['names'],
  'parentDeleted',
  DomainCommand<Named<T['names'], 'parentDeleted'>, ParentData<T> & T['context']>
>;
export type LifecycleCommand<T extends LifecycleTypes> = LifecycleCreate<T> | LifecycleUpdate<T> | LifecycleDelete<T> | LifecycleParentDeleted<T>;

export interface LifecycleState<Fields> {
  /** withdrawn: its parent was deleted before it was created; it never will be. */
  status: 'new' | 'live' | 'deleted' | 'withdrawn';
  id: number;
  fields: Fields | null;
}

/** What `complete` knows of the write: the record before it (null on create), the patch (null on create), the command's context. */
export interface LifecycleChange<Fields, Context> {
  before: Fields | null;
  patch: Partial<Fields> | null;
  context: Context;
}

/** The keys of Fields that may hold null: the only ones a parent's deletion may clear. */
export type NullableKey<Fields> = { [K in keyof Fields]-?: null extends Fields[K] ? K : never }[keyof Fields];

/**
 * `field` holds the parent's id: a live record whose parent is deleted is deleted with it, or,
 * with `clears`, keeps living with the field set to null (a post whose category is deleted).
 * Without `field`, the parent's deletion never deletes a live record.
 */
export type ParentRule<Fields> = {
  /** The refusal of a create whose parent is gone (the same 422 as the read-model check's). */
  refuse(fields: Fields): AppError;
} & ({ field?: keyof Fields; clears?: false } | { field: NullableKey<Fields>; clears: true });

export interface LifecycleSpec<Fields extends object, Context extends object, Names extends LifecycleNames, Layout extends EventLayout, Changes extends boolean, Deleted extends object> {
  names: Names;
  /** Names the record in refusals: "Blog category 3 already exists.", "Blog category not found.". */
  label: string;
  /** The resource's own rules on a whole set of fields (after `complete`); throws ValidationError. */
  check(fields: Fields, id: number): void;
  layout?: Layout;
  /** Updated events name the keys whose value changed (the host platform's do). */
  changedKeys?: Changes;
  /** Fields the resource derives itself before the check (a post's publish time, a trimmed title). */
  complete?(fields: Fields, change: LifecycleChange<Fields, Context>): Fields;
  /** What the deleted event carries besides the id (a comment's post). */
  deletedData?(fields: Fields): Deleted;
  parent?: ParentRule<Fields>;
}

export interface LifecycleDecider<T extends LifecycleTypes> extends Decider<LifecycleState<T['fields']>, LifecycleCommand<T>, LifecycleEvent<T>> {
  readonly names: T['names'];
  /** Whether the event is one of this life cycle's (a composing decider evolves the others itself). */
  handles(type: string): boolean;
}

/** The record and event shapes the implementation handles; the public types above are the precise ones. */
interface LooseData {
  id: number;
  fields?: object;
  patch?: object;
  [key: string]: unknown;
}

function changedKeys(before: object, after: object): string[] {
  const was = before as Record<string, unknown>;
  const is = after as Record<string, unknown>;
  return Object.keys(is).filter((key) => JSON.stringify(was[key]) !== JSON.stringify(is[key]));
}

function withoutId(data: LooseData): object {
  const { id: _id, ...fields } = data;
  return fields;
}

/**
 * Builds the life cycle of one resource. Curried so that Fields and Context are given and the
 * names, layout and the rest are inferred: `lifecycleDecider<BlogCategoryFields>()({ names, ... })`.
 */
export function lifecycleDecider<Fields extends object, Context extends object = NoData>() {
  return function define<
    const Names extends LifecycleNames,
    Layout extends EventLayout = 'nested',
    Changes extends boolean = false,
    Deleted extends object = NoData,
  >(
    spec: LifecycleSpec<Fields, Context, Names, Layout, Changes, Deleted>,
  ): LifecycleDecider<{ fields: Fields; context: Context; names: Names; layout: Layout; changes: Changes; deleted: Deleted }> {
    type T = { fields: Fields; context: Context; names: Names; layout: Layout; changes: Changes; deleted: Deleted };
    const { names, label, parent } = spec;
    const flat = spec.layout === 'flat';
    const parentKey = names.parentKey ?? 'parent_id';
    const types = new Set([names.created, names.updated, names.deleted, names.withdrawn, names.detached].filter((name) => name !== undefined));
    // The conditional event and command types cannot be narrowed inside a generic body: the
    // implementation works on their common shape and each result is typed once, here.
    const event = (type: string, data: object) => ({ type, data }) as LifecycleEvent<T>;
    const complete = (fields: Fields, change: LifecycleChange<Fields, Context>) => (spec.complete ? spec.complete(fields, change) : fields);
    const contextOf = (data: LooseData, omit: readonly string[]): Context => {
      const context: Record<string, unknown> = {};
      for (const key of Object.keys(data)) if (!omit.includes(key)) context[key] = data[key];
      return context as Context;
    };

    function create(data: LooseData, state: LifecycleState<Fields>): LifecycleEvent<T>[] {
      const given = (flat ? withoutId(data) : data.fields) as Fields;
      if (state.status === 'withdrawn' && parent) throw parent.refuse(given);
      if (state.status !== 'new') throw new ConflictError(`${label} ${data.id} already exists.`);
      const fields = complete(given, { before: null, patch: null, context: flat ? ({} as Context) : contextOf(data, ['id', 'fields']) });
      spec.check(fields, data.id);
      return [event(names.created, flat ? { id: data.id, ...fields } : { id: data.id, fields })];
    }

    function update(data: LooseData, state: LifecycleState<Fields>): LifecycleEvent<T>[] {
      if (state.status !== 'live' || !state.fields || names.updated === undefined) throw new NotFoundError(`${label} not found.`);
      const patch = data.patch as Partial<Fields>;
      const before = state.fields;
      const fields = complete({ ...before, ...definedKeys(patch) }, { before, patch, context: contextOf(data, ['id', 'patch']) });
      spec.check(fields, state.id);
      return [event(names.updated, spec.changedKeys ? { id: state.id, fields, changed: changedKeys(before, fields) } : { id: state.id, fields })];
    }

    function deleted(state: LifecycleState<Fields>): LifecycleEvent<T>[] {
      if (state.status !== 'live' || !state.fields) throw new NotFoundError(`${label} not found.`);
      return [event(names.deleted, spec.deletedData ? { id: state.id, ...spec.deletedData(state.fields) } : { id: state.id })];
    }

    function parentDeleted(data: LooseData, state: LifecycleState<Fields>): LifecycleEvent<T>[] {
      const parentId = data[parentKey];
      if (state.status === 'new') return names.withdrawn === undefined ? [] : [event(names.withdrawn, { id: data.id, [parentKey]: parentId })];
      if (state.status !== 'live' || !state.fields) return [];
      if (parent?.field !== undefined && state.fields[parent.field] === parentId) {
        if (!parent.clears) return deleted(state);
        // ParentRule lets `clears` name only a field that may hold null.
        return update({ ...contextOf(data, ['id', parentKey]), id: state.id, patch: { [parent.field]: null } }, state);
      }
      return names.detached === undefined ? [] : [event(names.detached, { id: state.id, [parentKey]: parentId })];
    }

    return {
      names,
      handles: (type) => types.has(type),
      initialState: () => ({ status: 'new', id: 0, fields: null }),
      evolve(state, lifecycleEvent) {
        const type: string = lifecycleEvent.type;
        const data = lifecycleEvent.data as LooseData;
        // Literals of the three keys: evolve runs for every event of every stream a command loads,
        // and a spread followed by keys takes V8's slow path (docs/DEVELOPING.md, Hot paths).
        if (type === names.created) return { status: 'live', id: data.id, fields: (flat ? withoutId(data) : data.fields) as Fields };
        if (type === names.updated) return { status: 'live', id: data.id, fields: data.fields as Fields };
        if (type === names.deleted) return { status: 'deleted', id: state.id, fields: state.fields };
        if (type === names.withdrawn) return { status: 'withdrawn', id: data.id, fields: state.fields };
        return state;
      },
      decide(command, state) {
        const type: string = command.type;
        const data = command.data as LooseData;
        if (type === names.create) return create(data, state);
        if (type === names.update) return update(data, state);
        if (type === names.delete) return deleted(state);
        if (type === names.parentDeleted) return parentDeleted(data, state);
        // Unreachable by type: every member of LifecycleCommand is one of the names above.
        return [];
      },
    };
  };
}

/** The types a built lifecycle decider was made of, to name its commands and events at the resource. */
export type LifecycleTypesOf<D> = D extends LifecycleDecider<infer T> ? T : never;
export type LifecycleCommandOf<D> = LifecycleCommand<LifecycleTypesOf<D>>;
export type LifecycleEventOf<D> = LifecycleEvent<LifecycleTypesOf<D>>;
