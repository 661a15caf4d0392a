import { loadConfig } from '../app/config.js';
import { createRuntime } from '../app/runtime.js';
import { chatbotServices } from '../queries/chatbot/services.js';
import { allResources } from '../workers/chatbot/all-resources.js';
import { indexResource } from '../workers/chatbot/index-resource.js';
import { progressBar } from './progress.js';

/**
 * `npm run reindex`: empties the chatbot's vector index and indexes every resource again from
 * the read models. Vectors come from the embedding cache when their text has not changed.
 * The embedded index lives in the server's memory and is rebuilt at each start; run against it,
 * this refreshes the embedding cache only.
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { startWorkers: false });
  try {
    const services = chatbotServices(runtime);
    const refs = await allResources(runtime.documents);
    await services.vectorIndex.clear();
    const bar = progressBar('reindex', refs.length);
    let indexed = 0;
    for (const ref of refs) {
      const outcome = await indexResource(
        { documents: runtime.documents, embedder: services.embedder, vectorIndex: services.vectorIndex },
        ref,
        runtime.clock.now(),
      );
      if (outcome === 'indexed') indexed++;
      bar.tick();
    }
    bar.stop();
    console.log(`Reindexed ${indexed} public resources of ${refs.length} (${await services.vectorIndex.size()} chunks).`);
    if (!services.vectorIndex.persistent) console.log('The embedded vector index is rebuilt by the server at each start.');
  } finally {
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Reindex failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
