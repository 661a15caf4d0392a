import { ConflictError, NotFoundError } from '../infra/errors.js';
import { definedKeys } from './defined-keys.js';

/**
 * Small rules any aggregate's decider may share. The life cycle most records have (created with
 * all their fields, patched, deleted; withdrawn when their parent went before they were
 * written) is spelled out in each decider's own switch; these name its steps.
 */

/** withdrawn: its parent was deleted before it was created; it never will be. */
export type RecordStatus = 'new' | 'live' | 'deleted' | 'withdrawn';

/** A record as its stream folds: `fields` are the last it was written with (kept after a delete). */
export interface RecordState<Fields> {
  status: RecordStatus;
  id: number;
  fields: Fields | null;
}

/** The state of a stream with no event yet. */
export function newRecord<Fields>(): RecordState<Fields> {
  return { status: 'new', id: 0, fields: null };
}

/** After its created or updated event: the record is these fields. */
export function liveRecord<Fields>(id: number, fields: Fields): RecordState<Fields> {
  return { status: 'live', id, fields };
}

/** After its deleted event: gone, with its last fields (its handler releases their keys). */
export function deletedRecord<Fields>(state: RecordState<Fields>): RecordState<Fields> {
  return { status: 'deleted', id: state.id, fields: state.fields };
}

/** After its withdrawn event: it will never be created. */
export function withdrawnRecord<Fields>(state: RecordState<Fields>, id: number): RecordState<Fields> {
  return { status: 'withdrawn', id, fields: state.fields };
}

/** The record's fields; a record never created, deleted or withdrawn is "`label` not found." (404). */
export function mustExist<Fields>(state: RecordState<Fields>, label: string): Fields {
  if (state.status !== 'live' || !state.fields) throw new NotFoundError(`${label} not found.`);
  return state.fields;
}

/** A create of a record the stream already has (or had) is "`label` `id` already exists." (409). */
export function mustNotExist<Fields>(state: RecordState<Fields>, label: string, id: number): void {
  if (state.status !== 'new') throw new ConflictError(`${label} ${id} already exists.`);
}

/** The fields after a PATCH: only the keys the patch carries (not undefined) change. */
export function patched<Fields extends object>(before: Fields, patch: Partial<Fields>): Fields {
  return { ...before, ...definedKeys(patch) };
}

/** The keys of `after` whose value differs from `before`'s (compared as JSON, so lists by content). */
export function changedKeys<Fields extends object>(before: Fields, after: Fields): string[] {
  const was = new Map<string, unknown>(Object.entries(before));
  return Object.entries(after)
    .filter(([key, value]) => JSON.stringify(was.get(key)) !== JSON.stringify(value))
    .map(([key]) => key);
}
