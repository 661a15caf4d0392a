import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import type { Runtime } from './runtime.js';

/** The fixture document of CONTRACT.md section 4; every key optional, each module reads its own. */
export type Fixture = Record<string, unknown>;

export interface FixtureProblem {
  /** JSON path of the offending value, e.g. `$.blog.posts[2].status`. */
  path: string;
  message: string;
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

/** Checks a value against a TypeBox schema and reports each problem with its JSON path. */
export function schemaProblems(schema: TSchema, value: unknown, prefix: string): FixtureProblem[] {
  const problems: FixtureProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    problems.push({ path: jsonPath(error.path, prefix), message: error.message });
    if (problems.length >= 20) break;
  }
  return problems;
}

export interface ImportProgress {
  tick(): void;
}

/**
 * A module's part of the fixture import. validate sees the whole fixture (references may cross
 * modules) and the runtime's read models (ids that already exist are refused); import runs the
 * module's commands, the same ones the API uses.
 */
export interface FixtureImporter {
  /** Lower runs first: users 10, sites 20, item sets 30, items 40, media 50, pages 60, blog 70, directory 80. */
  order: number;
  validate(fixture: Fixture, runtime: Runtime): Promise<FixtureProblem[]>;
  count(fixture: Fixture): number;
  import(fixture: Fixture, runtime: Runtime, progress: ImportProgress): Promise<void>;
}

/** Reads `fixture.a.b` as an array, or [] when absent. */
export function fixtureList<T>(fixture: Fixture, ...path: string[]): T[] {
  let value: unknown = fixture;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return [];
    value = (value as Record<string, unknown>)[key];
  }
  return Array.isArray(value) ? (value as T[]) : [];
}

/** Problems for duplicated ids inside one fixture list. */
export function duplicateIdProblems(items: { id?: unknown }[], path: string): FixtureProblem[] {
  const seen = new Set<unknown>();
  const problems: FixtureProblem[] = [];
  items.forEach((item, index) => {
    if (item.id === undefined) return;
    if (seen.has(item.id)) problems.push({ path: `${path}[${index}].id`, message: `Duplicate id ${String(item.id)} in the fixture.` });
    seen.add(item.id);
  });
  return problems;
}
