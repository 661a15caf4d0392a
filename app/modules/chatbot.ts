import type { AppModule } from '../module.js';
import type { Runtime } from '../runtime.js';
import { createAnswerer } from '../../infra/answerer/select.js';
import { createEmbedder } from '../../infra/embedder/select.js';
import { createVectorIndex } from '../../infra/vector-index/select.js';
import { chatbotBlogPostsProjection } from '../../projections/chatbot/blog-posts.js';
import { refsToReindex } from '../../projections/chatbot/index-jobs.js';
import { chatbotServices, registerChatbotServices, type RateLimiter } from '../../queries/chatbot/services.js';
import { chatbotRoutes } from '../../routes/chatbot/index.js';
import { MemoryRateLimiter } from '../../routes/chatbot/rate-limit.js';
import { IndexScheduler } from '../../workers/chatbot/index-queue.js';
import { startChatbotWorker, stopChatbotWorker } from '../../workers/chatbot/worker.js';

/** The Redis client is imported only when REDIS_URL is set. */
async function createRateLimiter(runtime: Runtime): Promise<RateLimiter> {
  const { redisUrl, chatbotRateLimit, chatbotRateWindowSeconds } = runtime.config;
  return redisUrl
    ? new (await import('../../routes/chatbot/redis-rate-limiter.js')).RedisRateLimiter(redisUrl, chatbotRateLimit, chatbotRateWindowSeconds, undefined, undefined, runtime.logger)
    : new MemoryRateLimiter(chatbotRateLimit, chatbotRateWindowSeconds, runtime.clock);
}

/**
 * The collection chatbot: indexes what the public site shows (items, media, blog posts, site
 * pages) into the vector index, and answers POST /chatbot/api/chat and /chatbot/api/search.
 */
export const chatbotModule: AppModule = {
  name: 'chatbot',
  projections: [chatbotBlogPostsProjection],
  routes: chatbotRoutes,
  async init(runtime) {
    registerChatbotServices(runtime, {
      embedder: await createEmbedder(runtime.config),
      vectorIndex: await createVectorIndex(runtime.config),
      answerer: await createAnswerer(runtime.config),
      rateLimiter: await createRateLimiter(runtime),
      indexing: new IndexScheduler(runtime.jobs, runtime.logger),
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
    await services.rateLimiter.close();
    await services.vectorIndex.close();
    await services.embedder.close();
  },
};
