import type { SortSpec } from './port.js';
import { UnsupportedQueryError, jsonPathLiteral, pathSegments } from './sql-paths.js';

/**
 * The ORDER BY of a sort on one or more fields, in mingo's and MongoDB's order of types:
 * missing and null (equal), numbers, strings, objects, arrays, booleans;
 * strings by code point (UTF-16 code units agree below U+D800), numbers numerically. Sort
 * fields are meant to hold scalars: objects and arrays are ranked but not ordered among
 * themselves, and a path through an array of objects counts as missing. Equal keys keep the
 * order of insertion (a replaced document keeps its place), as the in-memory store's do.
 * A `plain` field (declared indexed: a string, a number or null in every document) sorts by
 * its value alone, SQLite's own order of those types being the same (null, numbers, strings
 * by bytes, which for UTF-8 is code point order): the term is then the index's expression, so
 * the index serves the order and a LIMIT stops the walk early.
 */
export function orderByClause(sort: SortSpec | undefined, plain: ReadonlySet<string> = new Set()): string {
  const terms: string[] = [];
  for (const [path, direction] of Object.entries(sort ?? {})) {
    if (direction !== 1 && direction !== -1)
      throw new UnsupportedQueryError(`sort direction ${String(direction)} of "${path}" is not 1 or -1.`);
    const order = direction === 1 ? 'ASC' : 'DESC';
    if (path === '_id') {
      terms.push(`CASE typeof(_id) WHEN 'text' THEN 4 ELSE 3 END ${order}`, `_id ${order}`);
      continue;
    }
    const literal = jsonPathLiteral(pathSegments(path));
    if (plain.has(path)) {
      terms.push(`json_extract(doc, ${literal}) ${order}`);
      continue;
    }
    const type = `json_type(doc, ${literal})`;
    const rank =
      `CASE WHEN ${type} IS NULL OR ${type} = 'null' THEN 2 WHEN ${type} IN ('integer', 'real') THEN 3 ` +
      `WHEN ${type} = 'text' THEN 4 WHEN ${type} = 'object' THEN 6 WHEN ${type} = 'array' THEN 7 ELSE 9 END`;
    terms.push(`${rank} ${order}`, `json_extract(doc, ${literal}) ${order}`);
  }
  terms.push('rowid');
  return `ORDER BY ${terms.join(', ')}`;
}
