import type { Document, Update } from './port.js';
import { UnsupportedQueryError, isIndexSegment, pathSegments } from './sql-paths.js';

/**
 * The Mongo update subset of the SQLite document store, applied to a document the store has
 * just parsed (so in place): MongoDB's and mingo's meaning for
 *
 * - `$set` (dotted paths create missing objects on the way),
 * - `$unset` (a missing field is no change),
 * - `$inc` by a finite number (a missing field starts at 0),
 * - `$push`, `$addToSet` of one value (a missing field becomes a one-element array; `$addToSet`
 *   skips a value already there, compared as JSON),
 * - `$pull` of a string, number, boolean or null (every equal element goes).
 *
 * Through anything but an object, on a field of the wrong type (`$inc` on a string, `$push` on
 * a scalar), on `_id`, with an array index in the path, or with another operator or modifier
 * (`$each`, a `$pull` condition), it throws UnsupportedQueryError naming the problem: MongoDB
 * would refuse most of these too, and none may be evaluated quietly in another way.
 */
export function applyUpdate(doc: Document, update: Update): void {
  if (update === null || typeof update !== 'object' || Object.keys(update).length === 0) {
    throw new UnsupportedQueryError('an update needs at least one operator.');
  }
  for (const [operator, fields] of Object.entries(update)) {
    const apply = OPERATORS[operator];
    if (!apply) throw new UnsupportedQueryError(`the update operator ${operator} is outside the supported subset.`);
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields))
      throw new UnsupportedQueryError(`${operator} takes an object of fields.`);
    for (const [path, value] of Object.entries(fields)) {
      const segments = pathSegments(path);
      if (segments[0] === '_id') throw new UnsupportedQueryError(`${operator} cannot change _id.`);
      if (segments.some(isIndexSegment))
        throw new UnsupportedQueryError(
          `${operator} of "${path}": array indexes in update paths are outside the supported subset.`,
        );
      apply(doc, segments, value, operator);
    }
  }
}

type Apply = (doc: Document, segments: string[], value: unknown, operator: string) => void;

type Container = Record<string, unknown>;

function isObject(value: unknown): value is Container {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The object holding the last segment, creating missing ones when `create`; null when absent and not created. */
function parentOf(doc: Document, segments: string[], create: boolean, operator: string): Container | null {
  let current: Container = doc;
  for (const segment of segments.slice(0, -1)) {
    const next = Object.hasOwn(current, segment) ? current[segment] : undefined;
    if (next === undefined) {
      if (!create) return null;
      const made: Container = {};
      current[segment] = made;
      current = made;
    } else if (isObject(next)) {
      current = next;
    } else {
      if (!create) return null;
      throw new UnsupportedQueryError(
        `${operator} of "${segments.join('.')}" goes through "${segment}", which is not an object.`,
      );
    }
  }
  return current;
}

function checkJsonValue(operator: string, value: unknown): void {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    throw new UnsupportedQueryError(`${operator} with ${typeof value} is outside the supported subset.`);
  }
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new UnsupportedQueryError(`${operator} with ${value} is outside the supported subset.`);
}

/** A value stored as the JSON of the document will be, so later reads see what the store holds. */
function stored(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value;
}

function arrayAt(parent: Container, key: string, operator: string, path: string): unknown[] | undefined {
  const current = Object.hasOwn(parent, key) ? parent[key] : undefined;
  if (current === undefined) return undefined;
  if (!Array.isArray(current))
    throw new UnsupportedQueryError(`${operator} of "${path}", which holds something other than an array.`);
  return current;
}

function checkSingleValue(operator: string, value: unknown): void {
  checkJsonValue(operator, value);
  if (isObject(value) && Object.keys(value).some((key) => key.startsWith('$'))) {
    throw new UnsupportedQueryError(
      `${operator} modifiers (${Object.keys(value).join(', ')}) are outside the supported subset.`,
    );
  }
}

const OPERATORS: Record<string, Apply> = {
  $set(doc, segments, value, operator) {
    checkJsonValue(operator, value);
    const parent = parentOf(doc, segments, true, operator) as Container;
    parent[segments[segments.length - 1]] = stored(value);
  },
  $unset(doc, segments, _value, operator) {
    const parent = parentOf(doc, segments, false, operator);
    if (parent) delete parent[segments[segments.length - 1]];
  },
  $inc(doc, segments, value, operator) {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new UnsupportedQueryError(`$inc of "${segments.join('.')}" by a non-number.`);
    const parent = parentOf(doc, segments, true, operator) as Container;
    const key = segments[segments.length - 1];
    const current = Object.hasOwn(parent, key) ? parent[key] : undefined;
    if (current !== undefined && typeof current !== 'number')
      throw new UnsupportedQueryError(`$inc of "${segments.join('.')}", which holds something other than a number.`);
    parent[key] = (current ?? 0) + value;
  },
  $push(doc, segments, value, operator) {
    checkSingleValue(operator, value);
    const parent = parentOf(doc, segments, true, operator) as Container;
    const key = segments[segments.length - 1];
    const current = arrayAt(parent, key, operator, segments.join('.'));
    parent[key] = current ? [...current, stored(value)] : [stored(value)];
  },
  $addToSet(doc, segments, value, operator) {
    checkSingleValue(operator, value);
    const parent = parentOf(doc, segments, true, operator) as Container;
    const key = segments[segments.length - 1];
    const current = arrayAt(parent, key, operator, segments.join('.'));
    const json = JSON.stringify(value);
    if (!current) parent[key] = [stored(value)];
    else if (!current.some((element) => JSON.stringify(element) === json)) parent[key] = [...current, stored(value)];
  },
  $pull(doc, segments, value, operator) {
    if (!(
      value === null ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    )) {
      throw new UnsupportedQueryError(
        `$pull of "${segments.join('.')}" takes a string, number, boolean or null; conditions are outside the supported subset.`,
      );
    }
    const parent = parentOf(doc, segments, false, operator);
    if (!parent) return;
    const key = segments[segments.length - 1];
    const current = arrayAt(parent, key, operator, segments.join('.'));
    if (current) parent[key] = current.filter((element) => element !== value);
  },
};
