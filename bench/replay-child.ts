import { embeddedConfig } from '../infra/config.js';
import { createRuntime } from '../app/runtime.js';
import { appModules } from '../app/modules.js';
import { REBUILD_BATCH_EVENTS, rebuildReadModels } from '../projections/rebuild.js';

/**
 * Run in its own process over a DATA_DIR holding a large log: starts the runtime (whose
 * start-up replay is the warm-up), then rebuilds every read model from the whole log `rounds`
 * times as bin/rebuild.ts does (rebuildReadModels), and, as the baseline, only reads and decodes the log.
 * Prints {startup, rebuild[], readOnly[]} in events per second. EVENTSTORE_URL, when set, is
 * the log (a PostgreSQL one for the replay-postgres benchmark); the SQLite file in DATA_DIR
 * otherwise.
 */
const dataDir = process.env.DATA_DIR;
const rounds = Number(process.argv[2] ?? 3);
if (!dataDir) throw new Error('DATA_DIR is required');

const began = performance.now();
const runtime = await createRuntime(
  embeddedConfig(dataDir, process.env.EVENTSTORE_URL ? { eventStoreUrl: process.env.EVENTSTORE_URL } : {}),
  { modules: appModules, startWorkers: false },
);
const startupSeconds = (performance.now() - began) / 1000;
const total = await runtime.eventStore.countEvents();

async function rebuild(): Promise<number> {
  const start = performance.now();
  await rebuildReadModels(runtime);
  return total / ((performance.now() - start) / 1000);
}

async function readOnly(): Promise<number> {
  const start = performance.now();
  let position = 0;
  for (;;) {
    const batch = await runtime.eventStore.readAll(position, REBUILD_BATCH_EVENTS);
    if (batch.length === 0) break;
    position = batch[batch.length - 1].position;
  }
  return total / ((performance.now() - start) / 1000);
}

try {
  await runtime.projections.stop();
  const rebuildRates: number[] = [];
  const readRates: number[] = [];
  for (let i = 0; i < rounds; i++) {
    readRates.push(await readOnly());
    rebuildRates.push(await rebuild());
  }
  process.stdout.write(
    JSON.stringify({
      events: total,
      startup: total / startupSeconds,
      rebuild: rebuildRates,
      readOnly: readRates,
      rss: process.memoryUsage().rss,
    }),
  );
} finally {
  await runtime.close();
}
