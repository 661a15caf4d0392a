import { Value } from '@sinclair/typebox/value';
import {
  FixtureDocument,
  type Fixture,
  type FixtureImporter,
  type FixtureProblem,
  type FixtureSource,
  type ImportProgress,
} from '../commands/fixture.js';
import type { AppModule } from './kernel.js';
import { JSON_LIMITS } from '../routes/http/json-body.js';
import type { Runtime } from './runtime.js';

export function importersOf(modules: readonly AppModule[]): FixtureImporter[] {
  return modules
    .map((m) => m.importer)
    .filter((i): i is FixtureImporter => i !== undefined)
    .sort((a, b) => a.order - b.order);
}

/**
 * How deep a fixture may nest: two levels more than a request body (JSON_LIMITS.depth), for the
 * list and the record a page sits in (`$.site_pages[0]`), so a page's layout data and blocks
 * may nest as deep as through the API and no deeper. Nothing imported then overflows a
 * recursive walk (validation, the deciders' JSON.stringify), as 4,000 levels of layout data
 * did, nor passes the nesting MongoDB takes.
 */
export const FIXTURE_MAX_DEPTH = JSON_LIMITS.depth + 2;

/** The JSON path of the first object or array nested past `maxDepth`, or null. Iterative. */
export function firstTooDeep(root: unknown, maxDepth: number): string | null {
  interface Container {
    value: object;
    depth: number;
    parent: Container | null;
    key: string;
  }
  const pathOf = (node: Container): string => {
    const keys: string[] = [];
    for (let at: Container | null = node; at !== null; at = at.parent) keys.push(at.key);
    return keys.reverse().join('');
  };
  const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';
  if (!isContainer(root)) return null;
  // Only objects and arrays are stacked (a fixture's values are mostly text and numbers), and a
  // path is spelled out only for the one refused.
  const pending: Container[] = [{ value: root, depth: 1, parent: null, key: '$' }];
  while (pending.length > 0) {
    const node = pending.pop() as Container;
    if (node.depth > maxDepth) return pathOf(node);
    const children: [string, unknown][] = Array.isArray(node.value)
      ? node.value.map((child, i): [string, unknown] => [`[${i}]`, child])
      : Object.entries(node.value).map(([key, child]): [string, unknown] => [`.${key}`, child]);
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i];
      if (isContainer(child)) pending.push({ value: child, depth: node.depth + 1, parent: node, key });
    }
  }
  return null;
}

const NOT_AN_OBJECT: FixtureProblem = { path: '$', message: 'The fixture must be a JSON object.' };

/** Every problem of the fixture, each with its JSON path; empty means it can be imported whole. */
export async function validateFixture(
  runtime: Runtime,
  fixture: unknown,
  source: FixtureSource = { dir: process.cwd() },
): Promise<FixtureProblem[]> {
  return Value.Check(FixtureDocument, fixture) ? problemsOf(runtime, fixture, source) : [NOT_AN_OBJECT];
}

/** The problems of a document that is an object: too deep, an unknown section, each module's. */
async function problemsOf(runtime: Runtime, fixture: Fixture, source: FixtureSource): Promise<FixtureProblem[]> {
  const tooDeep = firstTooDeep(fixture, FIXTURE_MAX_DEPTH);
  if (tooDeep !== null)
    return [{ path: tooDeep, message: `Nested more than ${FIXTURE_MAX_DEPTH} levels deep (from the document's top).` }];
  const importers = importersOf(runtime.modules);
  const known = importers.flatMap((importer) => Object.keys(importer.sections));
  const problems: FixtureProblem[] = Object.keys(fixture)
    .filter((key) => !known.includes(key))
    .map((key) => ({
      path: `$.${key}`,
      message: `Unknown key "${key}"; the keys allowed here are ${known.join(', ')}.`,
    }));
  for (const importer of importers) problems.push(...(await importer.validate(fixture, runtime, source)));
  return problems;
}

export function countFixture(runtime: Runtime, fixture: Fixture): number {
  return importersOf(runtime.modules).reduce((n, i) => n + i.count(fixture), 0);
}

export class FixtureRefusedError extends Error {
  constructor(readonly problems: FixtureProblem[]) {
    super(`${problems[0].path}: ${problems[0].message}`);
  }
}

/**
 * Validates the whole fixture, then imports it through the modules' commands. Nothing is
 * written when any problem is found.
 */
export async function importFixture(
  runtime: Runtime,
  fixture: unknown,
  progress: ImportProgress = { tick() {} },
  source: FixtureSource = { dir: process.cwd() },
): Promise<number> {
  if (!Value.Check(FixtureDocument, fixture)) throw new FixtureRefusedError([NOT_AN_OBJECT]);
  const problems = await problemsOf(runtime, fixture, source);
  if (problems.length > 0) throw new FixtureRefusedError(problems);
  for (const importer of importersOf(runtime.modules)) await importer.import(fixture, runtime, { progress, source });
  await runtime.projections.catchUp();
  return countFixture(runtime, fixture);
}
