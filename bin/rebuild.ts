import { loadConfig } from '../app/config.js';
import { createRuntime } from '../app/runtime.js';
import { progressBar } from './progress.js';
import { REBUILD_BATCH_EVENTS } from './rebuild-flags.js';
import { appModules } from '../app/modules.js';

/**
 * `npm run rebuild`: drops every read model and replays the whole log into them (the SQLite
 * file or MongoDB): after a projection changed, or to repair read models. Stop the server first.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  try {
    await runtime.projections.stop();
    await runtime.projections.reset();
    const total = await runtime.eventStore.countEvents();
    const bar = progressBar('rebuild', total);
    let position = 0;
    for (;;) {
      const batch = await runtime.eventStore.readAll(position, REBUILD_BATCH_EVENTS);
      if (batch.length === 0) break;
      await runtime.projections.handle(batch);
      position = batch[batch.length - 1].position;
      bar.tick(batch.length);
    }
    // The text index is written by a thread beside the replay: done when it has caught up.
    await runtime.documents.settled?.();
    bar.stop();
    console.log(`Rebuilt read models from ${total} events.`);
  } finally {
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Rebuild failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
