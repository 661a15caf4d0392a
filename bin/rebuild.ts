import { loadConfig } from '../infra/config.js';
import { createRuntime } from '../app/runtime.js';
import { progressBar } from './progress.js';
import { rebuildReadModels } from '../projections/rebuild.js';
import { appModules } from '../app/modules.js';
import { errorMessage } from '../infra/errors.js';

/**
 * `npm run rebuild`: drops every read model and replays the whole log into them (the SQLite
 * file or MongoDB): after a projection changed, or to repair read models. Stop the server first.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  try {
    await runtime.projections.stop();
    const total = await runtime.eventStore.countEvents();
    const bar = progressBar('rebuild', total);
    await rebuildReadModels(runtime, (events) => bar.tick(events));
    bar.stop();
    console.log(`Rebuilt read models from ${total} events.`);
  } finally {
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Rebuild failed: ${errorMessage(error)}`);
  process.exit(1);
});
