import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { loadConfig } from '../infra/config.js';
import { createRuntime } from '../app/runtime.js';
import { countFixture, FixtureRefusedError, importFixture } from '../app/import-fixture.js';
import { Value } from '@sinclair/typebox/value';
import { FixtureDocument } from '../commands/fixture.js';
import { progressBar } from './progress.js';
import { appModules } from '../app/modules.js';
import { errorMessage } from '../infra/errors.js';

/**
 * `npm run import -- FILE.json`: validates the whole fixture first (all or nothing), then imports
 * it through the same commands the API uses. Exits non-zero with the JSON path of the first
 * problem when it refuses.
 */
async function main(): Promise<number> {
  const file = process.argv[2];
  if (!file) {
    console.error('Usage: npm run import -- FILE.json');
    return 2;
  }
  let fixture: unknown;
  try {
    fixture = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(`Import refused: $: cannot read ${file} as JSON (${errorMessage(error)}).`);
    return 1;
  }
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  const bar = progressBar('import', Value.Check(FixtureDocument, fixture) ? countFixture(runtime, fixture) : 0);
  try {
    const total = await importFixture(runtime, fixture, bar, { dir: dirname(resolve(file)) });
    bar.stop();
    console.log(`Imported ${total} records into ${config.dataDir}.`);
    return 0;
  } catch (error) {
    bar.stop();
    if (error instanceof FixtureRefusedError) {
      console.error(`Import refused, nothing was imported: ${error.message}`);
      for (const problem of error.problems.slice(1, 10)) console.error(`  also ${problem.path}: ${problem.message}`);
      return 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Import failed: ${errorMessage(error)}`);
    process.exit(1);
  },
);
