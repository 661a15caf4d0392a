import { loadConfig } from '../infra/config.js';
import { createRuntime } from '../app/runtime.js';
import { progressBar } from './progress.js';
import { rebuildReadModels } from '../projections/rebuild.js';
import { appModules } from '../app/modules.js';
import { chatbotModule } from '../app/modules/chatbot.js';
import { errorMessage } from '../infra/errors.js';
import { logIdentityOf, readModelsStamp, stampOf, vectorIndexStamp } from '../infra/log-identity.js';

/**
 * `npm run rebuild`: drops every read model and replays the whole log into them (the SQLite
 * file or MongoDB): after a projection changed, or to repair read models. Stop the server first.
 *
 * Read models built from another log (infra/log-identity.ts) are not refused here: this is how
 * they are given to this one. Then nothing of theirs is kept (not even what a rebuild keeps:
 * createRuntime drops them whole), and a vector index built from that other log is emptied,
 * which the server's next start fills again from the rebuilt read models. Both are stamped with
 * this log.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false, rebuildsReadModels: true });
  try {
    await runtime.projections.stop();
    const log = await logIdentityOf(runtime.eventStore, config);
    // The stamp of read models already this log's stays as it was (when they were first built from it).
    const readModels = readModelsStamp(runtime.documents, config);
    const kept = await readModels.read();
    const stamp = kept?.log === log.id ? kept : stampOf(log, runtime.clock.now());
    const total = await runtime.eventStore.countEvents();
    const bar = progressBar('rebuild', total);
    await rebuildReadModels(runtime, (events) => bar.tick(events));
    bar.stop();
    await readModels.write(stamp);
    const { vectorIndex } = runtime.module(chatbotModule).services;
    const indexed = await vectorIndexStamp(vectorIndex, config).read();
    if (indexed?.log !== log.id) {
      if (indexed) {
        await vectorIndex.clear();
        console.log(
          'The vector index was built from another event log: emptied; the server indexes the collection again at start.',
        );
      }
      await vectorIndex.stampLog(stampOf(log, runtime.clock.now()));
    }
    console.log(`Rebuilt read models from ${total} events.`);
  } finally {
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Rebuild failed: ${errorMessage(error)}`);
  process.exit(1);
});
