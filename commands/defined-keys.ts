/** The keys of a patch whose value is not undefined: a PATCH changes only the fields it carries. */
export function definedKeys<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
