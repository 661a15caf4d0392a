import type { AppModule } from '../kernel.js';
import { createAnswerer } from '../../infra/answerer/select.js';
import { createEmbedder } from '../../infra/embedder/select.js';
import { createVectorIndex } from '../../infra/vector-index/select.js';
import { chatbotBlogPostsProjection } from '../../projections/chatbot/blog-posts.js';
import { refsToReindex } from '../../projections/chatbot/index-jobs.js';
import { chatbotServices, registerChatbotServices } from '../../queries/chatbot/services.js';
import { chatbotRoutes } from '../../routes/chatbot/index.js';
import { EMBED_QUEUE, IndexScheduler } from '../../workers/chatbot/index-queue.js';
import { startChatbotWorker, stopChatbotWorker } from '../../workers/chatbot/worker.js';

/**
 * The collection chatbot: indexes what the public site shows (items, media, blog posts, site
 * pages) into the vector index, and answers POST /chatbot/api/chat and /chatbot/api/search.
 */
export const chatbotModule: AppModule = {
  name: 'chatbot',
  projections: [chatbotBlogPostsProjection],
  routes: chatbotRoutes,
  async init(runtime) {
    const embedder = await createEmbedder(runtime.config);
    registerChatbotServices(runtime, {
      embedder,
      vectorIndex: await createVectorIndex(runtime.config),
      answerer: await createAnswerer(runtime.config, embedder),
      indexing: new IndexScheduler(runtime.jobs, runtime.logger),
      embedding: new IndexScheduler(runtime.jobs, runtime.logger, EMBED_QUEUE),
    });
    // After each batch the read models hold the new state: the index jobs then read it.
    // A rebuild or import replays a million events in a CLI with no worker to run the jobs.
    if (!runtime.runsWorkers) return;
    runtime.projections.onBatch(async (batch) => {
      const { indexing } = chatbotServices(runtime);
      for (const event of batch) {
        for (const ref of await refsToReindex(event, runtime.documents)) await indexing.enqueue(ref);
      }
    });
  },
  async startWorkers(runtime) {
    await startChatbotWorker(runtime);
  },
  async stop(runtime) {
    stopChatbotWorker(runtime);
    const services = chatbotServices(runtime);
    services.indexing.stop();
    services.embedding.stop();
    await services.vectorIndex.close();
    await services.embedder.close();
  },
};
