import { Type, type Static, type TObject, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/*
 * A record's fields are declared once, as one TypeBox object per resource (e.g.
 * commands/blog/fields.ts): what its events carry, what its read model keeps. Everything else
 * is derived from it with these helpers: the write bodies (`optional`, `creatable`), a new
 * record's fields with their defaults (`fieldsOf`), the keys a body or a document may bring in
 * (`knownFields`, `presentFields`). They walk the schema's `properties`, so a field added there
 * reaches every one of them.
 */

/** A field with the value a new record takes when it is not given; the schema keeps it as `default`. */
export type WithDefault<T extends TSchema> = T & { default: Static<T> };

/** `schema` with a default (see fieldsOf). Write bodies drop it: the app's Ajv would fill it into a PATCH. */
export function withDefault<T extends TSchema>(schema: T, value: Static<T>): WithDefault<T> {
  return { ...schema, default: value };
}

/** The keys of `P` whose schema has a default. */
export type DefaultedKeys<P extends TProperties> = {
  [K in keyof P]-?: P[K] extends { default: unknown } ? K : never;
}[keyof P];

/** What a new record must be given: every field without a default; the others may be. */
export type FieldsGiven<T extends TObject> = Omit<Static<T>, DefaultedKeys<T['properties']>> & Partial<Static<T>>;

/** The schema without its default (and so without the value Ajv's useDefaults would put in a body). */
export function withoutDefault<T extends TSchema>(schema: T): T {
  if (!('default' in schema)) return schema;
  const { default: _default, ...rest } = schema;
  // The same schema less one annotation: the spread keeps TypeBox's symbol keys.
  return rest as T;
}

/** Each property optional, without its default: a PATCH's body (absent keys stay as they are). */
export function optional<P extends TProperties>(properties: P): { [K in keyof P]: TOptional<P[K]> } {
  const result: TProperties = {};
  for (const [key, schema] of Object.entries(properties)) result[key] = Type.Optional(withoutDefault(schema));
  // Built key by key from `properties`, each the schema it was made optional.
  return result as { [K in keyof P]: TOptional<P[K]> };
}

/** The properties a create takes: those with a default become optional (without it), the others stay required. */
export function creatable<P extends TProperties>(
  properties: P,
): { [K in keyof P]: K extends DefaultedKeys<P> ? TOptional<P[K]> : P[K] } {
  const result: TProperties = {};
  for (const [key, schema] of Object.entries(properties))
    result[key] = 'default' in schema ? Type.Optional(withoutDefault(schema)) : schema;
  // Built key by key from `properties`, as the type says.
  return result as { [K in keyof P]: K extends DefaultedKeys<P> ? TOptional<P[K]> : P[K] };
}

/** The properties without their defaults (a body that must give every field). */
export function withoutDefaults<P extends TProperties>(properties: P): P {
  const result: TProperties = {};
  for (const [key, schema] of Object.entries(properties)) result[key] = withoutDefault(schema);
  // The same keys and schemas, less an annotation.
  return result as P;
}

/**
 * A new record's fields, in the schema's order: each value `given` (not undefined), else the
 * field's default (a copy: a list is never shared); a field with neither stays absent. Keys of
 * `given` the schema does not declare are left out.
 */
export function fieldsOf<T extends TObject>(schema: T, given: FieldsGiven<T>): Static<T> {
  const fields: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    const value: unknown = Reflect.get(given, key);
    if (value !== undefined) fields[key] = value;
    else if ('default' in property) fields[key] = Value.Clone(property.default);
  }
  // Every field without a default was given (FieldsGiven), the others have theirs.
  return fields as Static<T>;
}

/** The keys of `value` the schema declares: a body the app's Ajv checked still holds any others. */
export function knownFields<T extends TObject>(schema: T, value: Static<T>): Static<T> {
  const known: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) if (Object.hasOwn(value, key)) known[key] = Reflect.get(value, key);
  // A subset of `value`'s own keys: those of its type.
  return known as Static<T>;
}

/** The keys the schema declares that `value` carries (not undefined): a patch. */
export function presentFields<T extends TObject>(schema: T, value: Partial<Static<T>>): Partial<Static<T>> {
  const present: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const field: unknown = Reflect.get(value, key);
    if (field !== undefined) present[key] = field;
  }
  // A subset of `value`'s keys, each with its value.
  return present as Partial<Static<T>>;
}

/** Names a body gives some fields instead of their own (`{ title: 'name' }`). */
export type FieldNames<P extends TProperties> = { readonly [K in keyof P]?: string };

/** The properties under a body's names: `names[key]`, else the key itself. */
export type Renamed<P extends TProperties, N extends FieldNames<P>> = {
  [K in keyof P as K extends keyof N ? (N[K] extends string ? N[K] : K) : K]: P[K];
};

function nameIn(names: object, key: string): string {
  const name: unknown = Reflect.get(names, key);
  return typeof name === 'string' ? name : key;
}

/** The properties under a body's names, in their order. */
export function renamed<P extends TProperties, N extends FieldNames<P>>(properties: P, names: N): Renamed<P, N> {
  const result: TProperties = {};
  for (const [key, schema] of Object.entries(properties)) result[nameIn(names, key)] = schema;
  // Built key by key from `properties`, each under the name the type gives it.
  return result as Renamed<P, N>;
}

/** The fields a body carries under its names (see renamed), back under their own: only those present. */
export function fromRenamed<T extends TObject>(
  schema: T,
  names: FieldNames<T['properties']>,
  body: object,
): Partial<Static<T>> {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value: unknown = Reflect.get(body, nameIn(names, key));
    if (value !== undefined) fields[key] = value;
  }
  // The body was validated by a schema made with `renamed` from this one: each value has its field's type.
  return fields as Partial<Static<T>>;
}
