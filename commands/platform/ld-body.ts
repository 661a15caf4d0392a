import {
  Type,
  type ObjectOptions,
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';
import { ValidationError } from '../../infra/errors.js';
import { fieldsOf, withoutDefault, type FieldsGiven } from '../../infra/schema/record-fields.js';

/*
 * A platform kind's write body, derived from its fields (contracts/platform/fields.ts): each field
 * is the body's `o:<field>`, optional, with the field's own schema (less its default), in the
 * fields' order; the few a body carries otherwise (references for ids, `o:block` for blocks) are
 * named in the kind's BodyKeys, with the conversion back. A field added to the fields is so in
 * the body, its mapping, its required keys and its defaults, with nothing else to write.
 */

/** A field the body carries under another key or in another shape, and how its value becomes the field's. */
export interface BodyKey<Key extends string, S extends TSchema, V> {
  key: Key;
  schema: S;
  /** The field's value from the body's; throws a ValidationError for a value it refuses. */
  field(value: Static<S>): V;
}

export function bodyKey<Key extends string, S extends TSchema, V>(
  key: Key,
  schema: S,
  field: (value: Static<S>) => V,
): BodyKey<Key, S, V> {
  return { key, schema, field };
}

/** The fields of `P` a body carries otherwise than as `o:<field>` with the field's schema. */
export type BodyKeys<P extends TProperties> = { [K in keyof P]?: BodyKey<string, TSchema, Static<P[K]>> };

type BodyKeyName<O, K extends string> = K extends keyof O
  ? O[K] extends { key: infer N extends string }
    ? N
    : never
  : `o:${K}`;
type BodyKeySchema<P extends TProperties, O, K extends keyof P> = K extends keyof O
  ? O[K] extends { schema: infer S extends TSchema }
    ? S
    : never
  : P[K];

/** The body's properties: each field under its body key, optional. */
export type BodyProperties<P extends TProperties, O> = {
  [K in keyof P & string as BodyKeyName<O, K>]: TOptional<BodyKeySchema<P, O, K>>;
};

/** A kind's write body: its schema, and the fields it carries. */
export interface LdBody<T extends TObject, B extends TObject> {
  /** POST, PUT and PATCH: every key optional (a create's required ones are `required`). */
  schema: B;
  /** The body keys a create must carry: those of the fields without a default. */
  required: string[];
  /** The fields the body carries, and only those (a PUT or PATCH: absent keys stay as they are). */
  patch(body: Static<B>): Partial<Static<T>>;
  /**
   * A new record's fields, in their order: the body's, else `fallback`'s (a media's file name
   * for its title), else their defaults. A 422 names each required key the body lacks (or gives
   * as null) before any value is converted.
   */
  create(body: Static<B>, fallback?: Partial<Static<T>>): Static<T>;
}

/** One field's way in and out of the body. */
interface FieldKey {
  field: string;
  /** Its key in the body, and that key's schema. */
  key: string;
  schema: TSchema;
  convert?: (value: unknown) => unknown;
  /** It has no default: a create must give it. */
  required: boolean;
}

function isBodyKey(value: unknown): value is BodyKey<string, TSchema, unknown> {
  return typeof value === 'object' && value !== null && 'key' in value && 'schema' in value && 'field' in value;
}

function keysOf(properties: TProperties, keys: object): FieldKey[] {
  return Object.entries(properties).map(([field, schema]) => {
    const other: unknown = Object.hasOwn(keys, field) ? Reflect.get(keys, field) : undefined;
    const required = !('default' in schema);
    if (!isBodyKey(other)) return { field, key: `o:${field}`, schema: withoutDefault(schema), required };
    return { field, key: other.key, schema: other.schema, convert: (value) => other.field(value), required };
  });
}

/** Whether every field without a default is given (not undefined). */
function givesRequired<T extends TObject>(fields: T, given: Partial<Static<T>>): given is FieldsGiven<T> {
  return Object.entries(fields.properties).every(
    ([field, schema]) => 'default' in schema || Reflect.get(given, field) !== undefined,
  );
}

/** The body of a kind whose fields are `fields`; `keys`: the fields it carries otherwise than as `o:<field>`. */
export function ldBody<T extends TObject, O extends BodyKeys<T['properties']>>(
  fields: T,
  keys: O,
  options: ObjectOptions,
): LdBody<T, TObject<BodyProperties<T['properties'], O>>> {
  const fieldKeys = keysOf(fields.properties, keys);
  const properties: TProperties = {};
  for (const { key, schema } of fieldKeys) properties[key] = Type.Optional(schema);
  // Built key by key from the fields, each under the name and with the schema the type gives it.
  const schema = Type.Object(properties, options) as TObject<BodyProperties<T['properties'], O>>;

  function patch(body: object): Partial<Static<T>> {
    const result: Record<string, unknown> = {};
    for (const { field, key, convert } of fieldKeys) {
      const value: unknown = Reflect.get(body, key);
      if (value !== undefined) result[field] = convert ? convert(value) : value;
    }
    // The body was validated by `schema`: each value is its body key's, converted to the field's type.
    return result as Partial<Static<T>>;
  }

  return {
    schema,
    required: fieldKeys.filter((key) => key.required).map((key) => key.key),
    patch,
    create(body, fallback = {}) {
      const missing = fieldKeys
        .filter(({ field, key, required }) => {
          if (!required || Reflect.get(fallback, field) !== undefined) return false;
          const value: unknown = Reflect.get(body, key);
          return value === undefined || value === null;
        })
        .map(({ key }) => key);
      if (missing.length)
        throw new ValidationError(
          'Required fields are missing.',
          Object.fromEntries(missing.map((key) => [key, ['This field is required.']])),
        );
      const given = { ...fallback, ...patch(body) };
      if (!givesRequired(fields, given)) throw new ValidationError('Required fields are missing.');
      return fieldsOf(fields, given);
    },
  };
}
