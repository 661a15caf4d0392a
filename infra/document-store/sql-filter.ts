import type { Filter } from './port.js';
import { UnsupportedQueryError, isIndexSegment, jsonPathLiteral, pathSegments } from './sql-paths.js';
import { isElementValue } from './sqlite-element-index.js';

/**
 * The Mongo filter subset of the SQLite document store, translated to a WHERE clause with bound
 * parameters. Semantics follow mingo (the embedded reference) and MongoDB:
 *
 * - `{path: value}` and `$eq` with a string, number, boolean or null: a scalar equal to it (no
 *   conversion between types), or an array holding it. `null` also matches a missing field.
 * - `$ne`, `$nin`: the negation of `$eq`, `$in`. `$in` takes an array of such values.
 * - `$gt`, `$gte`, `$lt`, `$lte` with a number or a string: values of the same type only
 *   (strings by code unit, numbers numerically), in an array too.
 * - `$exists` (a boolean), `$regex` (string or RegExp, `$options` of i, m, s) on strings.
 * - `$elemMatch` on an array: one element matches every condition (a filter on object elements,
 *   or operators on the element itself).
 * - `$and`, `$or` (non-empty arrays of filters); several keys in one object mean all of them.
 * - Dotted paths through objects, `field.N` for element N of an array, and one array of objects
 *   along a path (`copies.branch`: any element's field). Arrays inside arrays are outside.
 *
 * Anything else (another operator, an object or array as a value to compare) throws
 * UnsupportedQueryError naming it, before any SQL runs.
 */
export interface WhereClause {
  sql: string;
  params: (string | number)[];
}

/**
 * A location whose value is a plain SQL scalar: the `_id` column, or a top-level field the
 * collection declares indexed (the store refuses documents that hold anything but a string, a
 * number or null there). Conditions on it are the plain comparisons an index answers.
 */
interface PlainLocation {
  kind: 'plain';
  value: string;
  /** SQL true when the field is present (null included). */
  present: string;
}

/** A path inside a JSON document (`base` is SQL giving JSON text: the doc column or an element). */
interface JsonLocation {
  kind: 'json';
  base: string;
  segments: string[];
}

/** An array element itself, inside $elemMatch: its SQL value and JSON type from json_each. */
interface ElementLocation {
  kind: 'element';
  value: string;
  type: string;
}

type Location = PlainLocation | JsonLocation | ElementLocation;

type Scalar = string | number | boolean | null;

/** SQL true when the JSON type expression `t` is one of `types` (two-valued even when t is NULL). */
function typeIs(t: string, ...types: string[]): string {
  return types.length === 1 ? `${t} IS '${types[0]}'` : `(${types.map((type) => `${t} IS '${type}'`).join(' OR ')})`;
}

/** SQL NOT that reads an unknown (NULL) operand as false, as every predicate here means it. */
function not(sql: string): string {
  return `NOT coalesce(${sql}, 0)`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RegExp);
}

function checkScalar(operator: string, value: unknown): Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new UnsupportedQueryError(
    `${operator} with ${describe(value)} is outside the supported subset (strings, finite numbers, booleans, null).`,
  );
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof RegExp) return 'a RegExp';
  if (value === undefined) return 'undefined';
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${String(value)}`;
}

const RANGE_OPERATORS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** Regex options JavaScript shares with MongoDB; `x` (extended) has no JavaScript flag. */
const REGEX_OPTIONS = /^[ims]*$/;

/**
 * The collection's element indexes (sqlite-element-index.ts): each field's side table, and the
 * SQL of the document row's rowid in the query (qualified: a text search joins a list beside it).
 */
export interface ElementTables {
  tables: ReadonlyMap<string, string>;
  rowid: string;
  /** How many rows of `table` hold one of `values`, counted up to `limit` (more answers limit). */
  rowsHolding(table: string, values: readonly (string | number)[], limit: number): number;
}

/**
 * Up to this many documents holding the value, the condition is their list (built once: it
 * drives or probes cheaply); past it, a probe of the side table per row the plan walks, so a page
 * of a site's posts stops at its tenth instead of first listing a third of the posts.
 */
const ELEMENT_LIST_LIMIT = 2000;

/** The strings and finite numbers an element index answers equality with, or null for anything else. */
function elementOperands(value: unknown): (string | number)[] | null {
  if (isElementValue(value)) return [value];
  if (!isPlainObject(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1) return null;
  if (keys[0] === '$eq') return isElementValue(value.$eq) ? [value.$eq] : null;
  if (keys[0] === '$in')
    return Array.isArray(value.$in) && value.$in.length > 0 && value.$in.every(isElementValue) ? value.$in : null;
  return null;
}

class FilterTranslator {
  readonly params: (string | number)[] = [];
  private aliases = 0;

  constructor(
    private readonly plainFields: ReadonlySet<string>,
    private readonly elements: ElementTables | null,
  ) {}

  private bind(value: string | number): string {
    this.params.push(value);
    return '?';
  }

  filter(filter: unknown, base: string): string {
    if (!isPlainObject(filter)) throw new UnsupportedQueryError(`a filter must be an object, not ${describe(filter)}.`);
    const parts: string[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(value) || value.length === 0)
          throw new UnsupportedQueryError(`${key} takes a non-empty array of filters.`);
        const subs = value.map((sub) => `(${this.filter(sub, base)})`);
        parts.push(`(${subs.join(key === '$and' ? ' AND ' : ' OR ')})`);
      } else if (key.startsWith('$')) {
        throw new UnsupportedQueryError(`the operator ${key} is outside the supported subset.`);
      } else {
        parts.push(this.elementCondition(key, base, value) ?? this.condition(this.locate(key, base), value));
      }
    }
    return parts.length === 0 ? '1' : parts.join(' AND ');
  }

  /**
   * Equality (or $in) of strings and numbers on a top-level field with an element index: the
   * documents whose rows in its side table hold the value, which is what the JSON path's
   * "the value, or an element of it" means for such values. Null for anything else.
   */
  private elementCondition(key: string, base: string, value: unknown): string | null {
    const table = base === 'doc' ? this.elements?.tables.get(key) : undefined;
    if (!table || !this.elements) return null;
    const operands = elementOperands(value);
    if (!operands) return null;
    const few = this.elements.rowsHolding(table, operands, ELEMENT_LIST_LIMIT + 1) <= ELEMENT_LIST_LIMIT;
    const values =
      operands.length === 1 ? `= ${this.bind(operands[0])}` : `IN (${operands.map((v) => this.bind(v)).join(', ')})`;
    if (few) return `${this.elements.rowid} IN (SELECT doc FROM ${table} WHERE value ${values})`;
    return `EXISTS (SELECT 1 FROM ${table} WHERE value ${values} AND doc = ${this.elements.rowid})`;
  }

  private locate(path: string, base: string): Location {
    if (base === 'doc' && path === '_id') return { kind: 'plain', value: '_id', present: '1' };
    const segments = pathSegments(path);
    if (base === 'doc' && segments.length === 1 && this.plainFields.has(path)) {
      const literal = jsonPathLiteral(segments);
      return {
        kind: 'plain',
        value: `json_extract(doc, ${literal})`,
        present: `json_type(doc, ${literal}) IS NOT NULL`,
      };
    }
    return { kind: 'json', base, segments };
  }

  /** The condition of one field: a value to equal, or an object of operators. */
  private condition(location: Location, value: unknown): string {
    if (value instanceof RegExp) return this.regex(location, value.source, value.flags);
    if (!isPlainObject(value)) return this.equals(location, checkScalar('equality', value));
    const keys = Object.keys(value);
    if (keys.length === 0 || !keys.every((key) => key.startsWith('$'))) {
      throw new UnsupportedQueryError(
        'equality with an object is outside the supported subset; use operators or dotted paths.',
      );
    }
    const parts: string[] = [];
    for (const [operator, operand] of Object.entries(value)) {
      switch (operator) {
        case '$eq':
          parts.push(this.equals(location, checkScalar(operator, operand)));
          break;
        case '$ne':
          parts.push(not(this.equals(location, checkScalar(operator, operand))));
          break;
        case '$in':
          parts.push(this.in(location, this.list(operator, operand)));
          break;
        case '$nin':
          parts.push(not(this.in(location, this.list(operator, operand))));
          break;
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          parts.push(this.range(location, operator, operand));
          break;
        case '$exists':
          if (typeof operand !== 'boolean') throw new UnsupportedQueryError('$exists takes true or false.');
          parts.push(operand ? this.exists(location) : not(this.exists(location)));
          break;
        case '$regex': {
          const options = value.$options ?? '';
          if (typeof options !== 'string') throw new UnsupportedQueryError('$options takes a string.');
          if (operand instanceof RegExp) parts.push(this.regex(location, operand.source, operand.flags + options));
          else if (typeof operand === 'string') parts.push(this.regex(location, operand, options));
          else throw new UnsupportedQueryError('$regex takes a string or a RegExp.');
          break;
        }
        case '$options':
          if (!('$regex' in value)) throw new UnsupportedQueryError('$options needs $regex beside it.');
          break;
        case '$elemMatch':
          parts.push(this.elemMatch(location, operand));
          break;
        default:
          throw new UnsupportedQueryError(`the operator ${operator} is outside the supported subset.`);
      }
    }
    return parts.join(' AND ');
  }

  private list(operator: string, operand: unknown): Scalar[] {
    if (!Array.isArray(operand)) throw new UnsupportedQueryError(`${operator} takes an array.`);
    return operand.map((value) => checkScalar(operator, value));
  }

  /** SQL true when some value at the location (the value itself, or an element of it) passes `test(value, type)`. */
  private some(location: Location, test: (value: string, type: string) => string, elements: boolean): string {
    if (location.kind === 'element') return test(location.value, location.type);
    if (location.kind === 'plain') return test(location.value, `typeof(${location.value})`);
    const { base, segments } = location;
    const literal = jsonPathLiteral(segments);
    const parts = [test(`json_extract(${base}, ${literal})`, `json_type(${base}, ${literal})`)];
    if (elements) {
      const e = `e${++this.aliases}`;
      parts.push(
        `(json_type(${base}, ${literal}) IS 'array' AND EXISTS (SELECT 1 FROM json_each(${base}, ${literal}) AS ${e} WHERE ${test(`${e}.value`, `${e}.type`)}))`,
      );
    }
    // An array of objects along the path: the rest of the path in any of its elements.
    for (let i = 1; i < segments.length; i++) {
      if (isIndexSegment(segments[i])) continue;
      const prefix = jsonPathLiteral(segments.slice(0, i));
      const e = `e${++this.aliases}`;
      const inner = this.some({ kind: 'json', base: `${e}.value`, segments: segments.slice(i) }, test, elements);
      parts.push(
        `(json_type(${base}, ${prefix}) IS 'array' AND EXISTS (SELECT 1 FROM json_each(${base}, ${prefix}) AS ${e} WHERE ${e}.type IS 'object' AND (${inner})))`,
      );
    }
    return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
  }

  /** SQL true when the path resolves to nothing or null (no array of objects along it). */
  private missingOrNull(location: JsonLocation): string {
    const { base, segments } = location;
    const parts = [typeIs(`coalesce(json_type(${base}, ${jsonPathLiteral(segments)}), 'null')`, 'null')];
    for (let i = 1; i < segments.length; i++) {
      if (!isIndexSegment(segments[i]))
        parts.push(`json_type(${base}, ${jsonPathLiteral(segments.slice(0, i))}) IS NOT 'array'`);
    }
    return `(${parts.join(' AND ')})`;
  }

  private equals(location: Location, value: Scalar): string {
    if (location.kind === 'plain') {
      if (value === null) return `${location.value} IS NULL`;
      // Declared fields hold strings, numbers and null only.
      if (typeof value === 'boolean') return '0';
      return `${location.value} = ${this.bind(value)}`;
    }
    if (value === null) {
      const nullElement = this.some(location, (_v, t) => typeIs(t, 'null'), true);
      return location.kind === 'element' ? nullElement : `(${this.missingOrNull(location)} OR ${nullElement})`;
    }
    return this.some(location, this.equalTest(value), true);
  }

  private equalTest(value: string | number | boolean): (v: string, t: string) => string {
    if (typeof value === 'boolean') return (_v, t) => typeIs(t, value ? 'true' : 'false');
    const types = typeof value === 'string' ? ['text'] : ['integer', 'real'];
    return (v, t) => `(${typeIs(t, ...types)} AND ${v} = ${this.bind(value)})`;
  }

  private in(location: Location, values: Scalar[]): string {
    if (values.length === 0) return '0';
    if (location.kind === 'plain') {
      const bound = values.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
      const parts: string[] = [];
      if (bound.length > 0) parts.push(`${location.value} IN (${bound.map((v) => this.bind(v)).join(', ')})`);
      if (values.includes(null)) parts.push(`${location.value} IS NULL`);
      return parts.length === 0 ? '0' : `(${parts.join(' OR ')})`;
    }
    return `(${values.map((value) => this.equals(location, value)).join(' OR ')})`;
  }

  private range(location: Location, operator: string, operand: unknown): string {
    if (!(typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand)))) {
      throw new UnsupportedQueryError(
        `${operator} with ${describe(operand)} is outside the supported subset (a string or a finite number).`,
      );
    }
    const sqlOperator = RANGE_OPERATORS[operator];
    const types = typeof operand === 'string' ? ['text'] : ['integer', 'real'];
    if (location.kind === 'plain') {
      return `(${location.value} ${sqlOperator} ${this.bind(operand)} AND ${typeIs(`typeof(${location.value})`, ...types)})`;
    }
    return this.some(
      location,
      (v, t) => `(${typeIs(t, ...types)} AND ${v} ${sqlOperator} ${this.bind(operand)})`,
      true,
    );
  }

  private exists(location: Location): string {
    if (location.kind === 'plain') return location.present;
    if (location.kind === 'element') return '1';
    return this.some(location, (_v, t) => `${t} IS NOT NULL`, false);
  }

  private regex(location: Location, source: string, flags: string): string {
    const options = [...new Set(flags)].sort().join('');
    if (!REGEX_OPTIONS.test(options))
      throw new UnsupportedQueryError(`regex options "${flags}" are outside the supported subset (i, m, s).`);
    // Compiled once here, so a bad pattern fails as a developer error before any SQL runs.
    new RegExp(source, options);
    return this.some(
      location,
      (v, t) => `(${typeIs(t, 'text')} AND mongo_regex(${v}, ${this.bind(source)}, ${this.bind(options)}))`,
      true,
    );
  }

  private elemMatch(location: Location, criteria: unknown): string {
    if (!isPlainObject(criteria) || Object.keys(criteria).length === 0)
      throw new UnsupportedQueryError('$elemMatch takes a non-empty object.');
    if (location.kind !== 'json')
      throw new UnsupportedQueryError('$elemMatch applies to a document field, not to _id or inside $elemMatch.');
    const { base, segments } = location;
    const literal = jsonPathLiteral(segments);
    const e = `e${++this.aliases}`;
    const onElementItself = Object.keys(criteria).every(
      (key) => key.startsWith('$') && key !== '$and' && key !== '$or',
    );
    const test = onElementItself
      ? this.condition({ kind: 'element', value: `${e}.value`, type: `${e}.type` }, criteria)
      : `${e}.type IS 'object' AND (${this.filter(criteria, `${e}.value`)})`;
    return `(json_type(${base}, ${literal}) IS 'array' AND EXISTS (SELECT 1 FROM json_each(${base}, ${literal}) AS ${e} WHERE ${test}))`;
  }
}

/**
 * The WHERE clause of a filter over a table of `(_id, doc)` rows. `plainFields` are the
 * collection's declared top-level index fields (strings, numbers or null in every document);
 * `elements`, its element indexes, if any.
 */
export function whereClause(
  filter: Filter,
  plainFields: ReadonlySet<string>,
  elements: ElementTables | null = null,
): WhereClause {
  const translator = new FilterTranslator(plainFields, elements);
  const sql = translator.filter(filter, 'doc');
  return { sql, params: translator.params };
}
