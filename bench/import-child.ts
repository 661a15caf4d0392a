import { readFileSync } from 'node:fs';
import { embeddedConfig } from '../infra/config.js';
import { importFixture } from '../app/import-fixture.js';
import { createRuntime } from '../app/runtime.js';
import { appModules } from '../app/modules.js';

/**
 * Run in its own process over an empty DATA_DIR: imports the fixture given as argument the way
 * bin/import.ts does (same runtime, no workers, validation first), noting when each record is
 * done. Prints {records, seconds, ticks: [ms at each tenth of the records]}.
 */
const dataDir = process.env.DATA_DIR;
const file = process.argv[2];
if (!dataDir || !file) throw new Error('DATA_DIR and a fixture file are required');

const fixture: unknown = JSON.parse(readFileSync(file, 'utf8'));
const runtime = await createRuntime(embeddedConfig(dataDir), { modules: appModules, startWorkers: false });
const times: number[] = [];
const began = performance.now();
try {
  const records = await importFixture(runtime, fixture, { tick: () => void times.push(performance.now()) });
  const seconds = (performance.now() - began) / 1000;
  // When the first record was done, then each tenth: the rate per tenth shows whether it slows down.
  const tenths = Array.from(
    { length: 11 },
    (_, i) => times[Math.min(times.length - 1, Math.round((i * (times.length - 1)) / 10))] - began,
  );
  process.stdout.write(
    JSON.stringify({ records, ticked: times.length, seconds, tenths, rss: process.memoryUsage().rss }),
  );
} finally {
  await runtime.close();
}
