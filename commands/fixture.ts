import {
  Type,
  TypeGuard,
  type ObjectOptions,
  type Static,
  type TObject,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { creatable } from '../infra/schema/record-fields.js';
import type { ModuleRuntime } from './module-runtime.js';

/*
 * A module's part of the fixture import (CONTRACT.md section 4): the importer's contract, which
 * the app's import (app/import-fixture.ts) runs, and the helpers the modules' importers share.
 */

/**
 * The fixture document of CONTRACT.md section 4 as the import first checks it: an object of
 * sections, every key optional, each read and checked by its own module (its importer's
 * `validate`, then fixtureSection). The whole document's schema is made of the modules'
 * sections (app/fixture-schema.ts).
 */
export const FixtureDocument = Type.Record(Type.String(), Type.Unknown());
export type Fixture = Static<typeof FixtureDocument>;

export interface FixtureProblem {
  /** JSON path of the offending value, e.g. `$.blog.posts[2].status`. */
  path: string;
  message: string;
}

export interface ImportProgress {
  tick(): void;
}

/** Where the fixture came from: files it names (a media's `file`) are read relative to `dir`. */
export interface FixtureSource {
  dir: string;
}

/** What one import gives each importer: its progress, and where the fixture came from. */
export interface ImportRun {
  progress: ImportProgress;
  source: FixtureSource;
}

/**
 * A module's part of the fixture import. validate sees the whole fixture (references may cross
 * modules) and the runtime's read models (ids that already exist are refused); import runs the
 * module's commands, the same ones the API uses.
 */
export interface FixtureImporter {
  /** Lower runs first: users 10, sites 20, item sets 30, items 40, media 50, pages 60, blog 70, directory 80. */
  order: number;
  /** The top-level keys of the fixture this module reads, each with its schema (docs/fixture.schema.json is made of these). */
  sections: Record<string, TSchema>;
  validate(fixture: Fixture, runtime: ModuleRuntime, source: FixtureSource): Promise<FixtureProblem[]>;
  count(fixture: Fixture): number;
  import(fixture: Fixture, runtime: ModuleRuntime, run: ImportRun): Promise<void>;
}

/** Turns a JSON pointer (`/users/0/email`) into a JSON path (`$.users[0].email`). */
export function jsonPath(pointer: string, prefix = '$'): string {
  if (!pointer) return prefix;
  return (
    prefix +
    pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
      .join('')
  );
}

/**
 * An object of the fixture: a key it does not know is refused rather than ignored, so a
 * misspelling (`is_publik`) never imports something other than what was meant.
 */
export function fixtureObject<T extends TProperties>(properties: T, options: ObjectOptions = {}): TObject<T> {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/**
 * A record's fields as a fixture gives them (from its fields schema, e.g.
 * contracts/platform/fields.ts): those without a default required, and a text one not empty
 * either; the others optional, taking their default when left out (`fieldsOf`).
 */
export function fixtureFields<P extends TProperties>(properties: P): ReturnType<typeof creatable<P>> {
  const result: TProperties = {};
  for (const [key, schema] of Object.entries(creatable(properties)))
    result[key] =
      TypeGuard.IsString(schema) && !TypeGuard.IsOptional(schema) && schema.minLength === undefined
        ? { ...schema, minLength: 1 }
        : schema;
  // creatable's properties, a required text one given a minimum length: the same types.
  return result as ReturnType<typeof creatable<P>>;
}

/** The values a union of literals accepts, or null when some branch is not a literal. */
function literalValues(schema: TSchema): unknown[] | null {
  if (!TypeGuard.IsUnion(schema)) return null;
  const values: unknown[] = [];
  for (const branch of schema.anyOf) {
    if (!TypeGuard.IsLiteral(branch)) return null;
    values.push(branch.const);
  }
  return values;
}

/** Type names of a union's branches ("an integer or null"). */
function unionTypes(schema: TSchema): string | null {
  const branches = TypeGuard.IsUnion(schema) ? schema.anyOf : [];
  // A schema's `type` keyword: TypeBox types the keywords beyond its own as any, so it is read as unknown.
  const names = branches.map((b): unknown => b.type).filter((type): type is string => typeof type === 'string');
  return names.length === branches.length && names.length > 0 ? names.join(' or ') : null;
}

/** What a person needs to mend the value: the keys allowed, the values allowed. */
function problemMessage(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = error.path.split('/').pop() ?? '';
    const allowed = TypeGuard.IsObject(error.schema) ? Object.keys(error.schema.properties) : [];
    return `Unknown key "${key.replace(/~1/g, '/').replace(/~0/g, '~')}"; the keys allowed here are ${allowed.join(', ')}.`;
  }
  if (error.type === ValueErrorType.Union) {
    const values = literalValues(error.schema);
    if (values) return `Must be one of ${values.map((v) => String(v)).join(', ')}; got ${JSON.stringify(error.value)}.`;
    const types = unionTypes(error.schema);
    if (types) return `Must be ${types}; got ${JSON.stringify(error.value)}.`;
  }
  return error.message;
}

/** Checks a value against a TypeBox schema and reports each problem with its JSON path. */
export function schemaProblems(schema: TSchema, value: unknown, prefix: string): FixtureProblem[] {
  const problems: FixtureProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    problems.push({ path: jsonPath(error.path, prefix), message: problemMessage(error) });
    if (problems.length >= 20) break;
  }
  return problems;
}

/**
 * The fixture's `key` section with its schema's type, checked (Value.Check) rather than cast. An
 * importer's `import` runs on a fixture its `validate` passed, where the section matches; `count`
 * may run before it (the import tool's progress bar), where a section that does not match counts
 * as absent.
 */
export function fixtureSection<T extends TSchema>(fixture: Fixture, key: string, schema: T): Static<T> | undefined {
  const section = fixture[key];
  return Value.Check(schema, section) ? section : undefined;
}

/** Problems for duplicated ids inside one fixture list. */
export function duplicateIdProblems(items: { id?: unknown }[], path: string): FixtureProblem[] {
  const seen = new Set<unknown>();
  const problems: FixtureProblem[] = [];
  items.forEach((item, index) => {
    if (item.id === undefined) return;
    if (seen.has(item.id))
      problems.push({ path: `${path}[${index}].id`, message: `Duplicate id ${String(item.id)} in the fixture.` });
    seen.add(item.id);
  });
  return problems;
}
