import type { Fixture, FixtureImporter, FixtureProblem, ImportProgress } from './fixture.js';
import type { Runtime } from './runtime.js';

const TOP_LEVEL_KEYS = new Set(['users', 'sites', 'item_sets', 'items', 'site_pages', 'blog', 'directory']);

function importersOf(runtime: Runtime): FixtureImporter[] {
  return runtime.modules
    .map((m) => m.importer)
    .filter((i): i is FixtureImporter => i !== undefined)
    .sort((a, b) => a.order - b.order);
}

/** Every problem of the fixture, each with its JSON path; empty means it can be imported whole. */
export async function validateFixture(runtime: Runtime, fixture: unknown): Promise<FixtureProblem[]> {
  if (fixture === null || typeof fixture !== 'object' || Array.isArray(fixture)) {
    return [{ path: '$', message: 'The fixture must be a JSON object.' }];
  }
  const problems: FixtureProblem[] = Object.keys(fixture)
    .filter((key) => !TOP_LEVEL_KEYS.has(key))
    .map((key) => ({ path: `$.${key}`, message: 'Unknown key.' }));
  for (const importer of importersOf(runtime)) problems.push(...(await importer.validate(fixture as Fixture, runtime)));
  return problems;
}

export function countFixture(runtime: Runtime, fixture: Fixture): number {
  return importersOf(runtime).reduce((n, i) => n + i.count(fixture), 0);
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
export async function importFixture(runtime: Runtime, fixture: unknown, progress: ImportProgress = { tick() {} }): Promise<number> {
  const problems = await validateFixture(runtime, fixture);
  if (problems.length > 0) throw new FixtureRefusedError(problems);
  for (const importer of importersOf(runtime)) await importer.import(fixture as Fixture, runtime, progress);
  await runtime.projections.catchUp();
  return countFixture(runtime, fixture as Fixture);
}
