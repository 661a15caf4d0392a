import type { AppModule, ModuleInstance } from '../kernel.js';
import { createAnswerer } from '../../infra/answerer/select.js';
import { createEmbedder } from '../../infra/embedder/select.js';
import { IndexModels } from '../../infra/vector-index/index-models.js';
import { createQuestionLog } from '../../infra/question-log/select.js';
import { createVectorIndex } from '../../infra/vector-index/select.js';
import { holdToLog, logIdentityOf, vectorIndexStamp } from '../../infra/log-identity.js';
import { chatbotBlogPostsProjection } from '../../projections/chatbot/blog-posts.js';
import { chatbotIndexOutboxProjection } from '../../projections/chatbot/index-outbox.js';
import { refsToReindex } from '../../projections/chatbot/index-jobs.js';
import { PatronQuestions } from '../../queries/chatbot/questions.js';
import { CollectionReading } from '../../queries/chatbot/reading-progress.js';
import type { ChatbotServices } from '../../workers/chatbot/services.js';
import { chatbotRoutes } from '../../routes/chatbot/index.js';
import { EMBED_QUEUE, IndexScheduler } from '../../workers/chatbot/index-queue.js';
import { startQuestionRetention, type QuestionRetention } from '../../workers/chatbot/question-retention.js';
import { startChatbotWorker, type ChatbotWorker } from '../../workers/chatbot/worker.js';

/** What the chatbot module runs in one runtime. */
export interface ChatbotModuleInstance extends ModuleInstance {
  /** Built once here; its routes, worker and listener read a port from it on every use. */
  services: ChatbotServices;
  /**
   * Enqueues the posts whose publication time has come since the last check: the worker does
   * every minute, a test when it moves its clock. Nothing without workers.
   */
  checkScheduledPosts(): Promise<void>;
  /** Writes that only save work, skipped on a refusing disk since the start (/health). */
  skippedWrites(): { questions_not_recorded: number; embeddings_not_cached: number };
}

/**
 * The collection chatbot: indexes what the public site shows (items, media, blog posts, site
 * pages) into the vector index, and answers POST /chatbot/api/chat and /chatbot/api/search.
 */
export const chatbotModule: AppModule<ChatbotModuleInstance> = {
  name: 'chatbot',
  projections: [chatbotBlogPostsProjection, chatbotIndexOutboxProjection],
  async create(runtime) {
    // First: QUESTION_LOG_URL's database away stops the start before anything else is opened.
    const questionLog = await createQuestionLog(runtime.config);
    const vectorIndex = await createVectorIndex(runtime.config);
    // A runtime that indexes (the server) holds the index to its log, as the runtime does the read
    // models: the chunks of another log's resources are refused. The CLIs index nothing (reindex
    // replaces the whole index, and stamps it).
    if (runtime.runsWorkers) {
      try {
        await holdToLog(
          vectorIndexStamp(vectorIndex, runtime.config),
          await logIdentityOf(runtime.eventStore, runtime.config),
          runtime.clock.now(),
        );
      } catch (error) {
        await vectorIndex.close();
        await questionLog.close();
        throw error;
      }
    }
    const embedder = await createEmbedder(runtime.config, runtime.logger);
    const services: ChatbotServices = {
      embedder,
      vectorIndex,
      indexModels: new IndexModels(),
      answerer: await createAnswerer(runtime.config, embedder),
      indexing: new IndexScheduler(runtime.jobs, runtime.logger),
      embedding: new IndexScheduler(runtime.jobs, runtime.logger, EMBED_QUEUE),
      questions: new PatronQuestions({
        log: questionLog,
        clock: runtime.clock,
        retentionDays: runtime.config.chatbotQuestionRetentionDays,
        logger: runtime.logger,
      }),
      reading: new CollectionReading(runtime.documents),
    };
    // After each batch the read models hold the new state: the index jobs then read it.
    // A rebuild or import replays a million events in a CLI with no worker to run the jobs.
    if (runtime.runsWorkers) {
      runtime.projections.onBatch(async (batch) => {
        for (const event of batch) {
          for (const ref of await refsToReindex(event, runtime.documents)) await services.indexing.enqueue(ref);
        }
      });
    }
    // Every runtime (the backup CLI's too) first drops the expired questions: no snapshot it takes holds one.
    try {
      await services.questions.sweep();
    } catch (error) {
      runtime.logger.error({ err: error }, 'the chatbot question retention sweep failed');
    }
    let worker: ChatbotWorker | null = null;
    let retention: QuestionRetention | null = null;
    return {
      services,
      routes: chatbotRoutes(services),
      async startWorkers() {
        // The server listens: the embedded index reads its matrix now rather than at the first search.
        services.vectorIndex.warm?.(services.embedder.model);
        worker = await startChatbotWorker(runtime, services);
        retention = await startQuestionRetention(services.questions, runtime.logger);
      },
      skippedWrites: () => ({
        questions_not_recorded: services.questions.notRecorded,
        embeddings_not_cached: embedder.skippedWrites,
      }),
      async checkScheduledPosts() {
        await worker?.checkScheduledPosts();
      },
      async stop() {
        worker?.stop();
        await retention?.stop();
        services.indexing.stop();
        services.embedding.stop();
        await services.vectorIndex.close();
        await services.embedder.close();
        await questionLog.close();
      },
    };
  },
};
