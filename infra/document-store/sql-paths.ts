/**
 * Field paths of the filter subset as SQLite JSON paths. A path's segments are field names
 * (letters, digits, `_`, not starting with a digit) or array indexes (digits); they are written
 * into the SQL text (SQLite matches an expression index only against a literal path), so
 * anything else is refused rather than quoted.
 */

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INDEX = /^\d+$/;

export class UnsupportedQueryError extends Error {
  constructor(message: string) {
    super(`SQLite document store: ${message}`);
    this.name = 'UnsupportedQueryError';
  }
}

/** A table or column name as an SQL identifier: double-quoted, a `"` in it doubled. */
export function quotedName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function isIndexSegment(segment: string): boolean {
  return INDEX.test(segment);
}

/** The segments of a dotted path, checked. */
export function pathSegments(path: string): string[] {
  const segments = path.split('.');
  if (segments.length === 0 || !FIELD.test(segments[0]) || !segments.every((s) => FIELD.test(s) || INDEX.test(s))) {
    throw new UnsupportedQueryError(
      `the field path "${path}" is outside the supported subset (field names of letters, digits and _, and array indexes).`,
    );
  }
  return segments;
}

/** `['owner', 'city']` as the SQL string literal `'$.owner.city'`; `['folders', '0']` as `'$.folders[0]'`. */
export function jsonPathLiteral(segments: readonly string[]): string {
  let path = '$';
  for (const segment of segments) path += INDEX.test(segment) ? `[${segment}]` : `.${segment}`;
  return `'${path}'`;
}
