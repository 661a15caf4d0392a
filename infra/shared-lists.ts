/** Lists longer than this are kept as given: long ones are rarely equal, and the key would cost more. */
const MAX_SHARED_LENGTH = 8;
/** Distinct lists remembered; past this, new lists are kept as given rather than growing without bound. */
const MAX_DISTINCT = 10_000;

const EMPTY: readonly never[] = Object.freeze([]);
const shared = new Map<string, readonly (string | number)[]>();

/**
 * One frozen copy of each short list of ids or names, for documents held in memory: a read model
 * of 100,000 posts otherwise keeps 100,000 copies of `[1]` and `[]`. Frozen because stored
 * documents are never changed in place; a caller that tried would fail loudly, not corrupt
 * every document sharing the list.
 */
export function sharedList<T extends string | number>(values: readonly T[]): T[] {
  // Typed mutable to fit the document types; frozen underneath, so a mutation throws.
  if (values.length === 0) return EMPTY as unknown as T[];
  if (values.length > MAX_SHARED_LENGTH) return values as T[];
  const key = JSON.stringify(values);
  const known = shared.get(key);
  if (known) return known as T[];
  const copy = Object.freeze(values.slice());
  if (shared.size < MAX_DISTINCT) shared.set(key, copy);
  return copy as T[];
}
