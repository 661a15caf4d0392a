import { loadConfig } from '../infra/config.js';
import { appModules } from '../app/modules.js';
import { chatbotModule } from '../app/modules/chatbot.js';
import { createRuntime } from '../app/runtime.js';
import { type ResourceRef, indexOutbox } from '../contracts/chatbot/documents.js';
import { describeProgress, readingProgress } from '../queries/chatbot/reading-progress.js';
import { allResources } from '../workers/chatbot/all-resources.js';
import { indexResource, type IndexOptions, type IndexOutcome } from '../workers/chatbot/index-resource.js';
import { progressBar, type ProgressBar } from './progress.js';
import { errorMessage } from '../infra/errors.js';
import { logIdentityOf, stampOf } from '../infra/log-identity.js';

/**
 * Resources indexed at once: while one is written, the next ones wait at the model, so its
 * thread never idles between resources.
 */
const IN_FLIGHT = 4;

/**
 * `npm run reindex`: empties the chatbot's vector index and indexes every resource again from
 * the read models, with the embedder configured now (so it also moves the index from one model
 * to another). Vectors come from the embedding cache when their text and model have not
 * changed. With the embedded model, a first pass indexes what the cache lacks by its words
 * (seconds), so the index (Elasticsearch, or the embedded one's file, which a running server
 * shares) answers searches while the second pass, with a progress bar and the time left, gives
 * it the model's vectors.
 *
 * The index is stamped with this log (infra/log-identity.ts): this is how an index built from
 * another log is given to this one.
 *
 * `npm run reindex -- --status` only says how far the collection has been read (what /health's
 * `chatbot` says: searchable by words, by meaning, of how many, the time left).
 */
async function main(): Promise<void> {
  const config = { ...loadConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' };
  const runtime = await createRuntime(config, { modules: appModules, startWorkers: false });
  try {
    // `--status`: how far the collection has been read, as /health's `chatbot` says; nothing is changed.
    if (process.argv.includes('--status')) {
      const progress = await readingProgress(runtime.documents, runtime.clock.now());
      console.log(describeProgress(progress));
      console.log(JSON.stringify(progress));
      return;
    }
    const { services } = runtime.module(chatbotModule);
    const deps = { documents: runtime.documents, embedder: services.embedder, vectorIndex: services.vectorIndex };
    // Every change up to here is in the read models this reindex reads each resource from.
    const covered = runtime.projections.currentPosition;
    const refs = await allResources(runtime.documents);
    await services.vectorIndex.clear();
    // Filled from read models held to this log at start: the index is this log's now, whichever
    // log it was built from before (infra/log-identity.ts).
    await services.vectorIndex.stampLog(stampOf(await logIdentityOf(runtime.eventStore, config), runtime.clock.now()));
    const outcomes = new Map<ResourceRef, IndexOutcome>();
    const pass = async (todo: ResourceRef[], options: IndexOptions, bar: ProgressBar) => {
      let next = 0;
      const lane = async () => {
        while (next < todo.length) {
          const ref = todo[next++];
          outcomes.set(ref, await indexResource(deps, ref, runtime.clock.now(), options));
          bar.tick();
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      bar.stop();
    };
    await pass(refs, { provisionalFirst: true }, progressBar('reindex: words', refs.length));
    const waiting = refs.filter((ref) => outcomes.get(ref) === 'provisional');
    if (waiting.length > 0)
      await pass(waiting, {}, progressBar('reindex: meaning', waiting.length, { eta: true, etaWindow: 200 }));
    // The index work those changes left owed is done; later changes keep their marks for the server.
    await indexOutbox(runtime.documents).deleteMany({ position: { $lte: covered } });
    const indexed = [...outcomes.values()].filter((outcome) => outcome === 'indexed').length;
    const left = [...outcomes.values()].filter((outcome) => outcome === 'superseded').length;
    console.log(
      `Reindexed ${indexed} public resources of ${refs.length} (${await services.vectorIndex.size()} chunks). Model: ${services.embedder.model}.`,
    );
    if (left > 0)
      console.log(
        `${left} resources changed while being embedded and hold their words only; the server's index jobs take them.`,
      );
    if (!services.vectorIndex.persistent)
      console.log('The embedded vector index is rebuilt by the server at each start.');
  } finally {
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Reindex failed: ${errorMessage(error)}`);
  process.exit(1);
});
