import type { AppModule, Runtime } from '../kernel.js';
import type { VectorIndex } from '../../infra/vector-index/port.js';
import { healthRoutes } from '../../routes/health/index.js';
import { healthReport, type ChatbotHealth, type ModulePorts } from '../health/report.js';

/** The ports /health checks that another module builds; app/modules.ts says which one. */
export interface OperationsSources {
  vectorIndex(runtime: Runtime): VectorIndex;
  /** How far the chatbot has read the collection. */
  chatbotReading(runtime: Runtime): Promise<ChatbotHealth>;
}

/** What operators look at and rely on: GET /health, and a start that clears what a crash left. */
export function createOperationsModule(sources: OperationsSources): AppModule {
  return {
    name: 'operations',
    create(runtime) {
      const modulePorts: ModulePorts = {
        vectorIndex: () => sources.vectorIndex(runtime),
        chatbotReading: () => sources.chatbotReading(runtime),
      };
      return {
        routes: healthRoutes((sessions) => healthReport(runtime, sessions, modulePorts)),
        async startWorkers() {
          // Wall-clock times, not runtime.clock: they are compared with the files' modification times.
          const now = Date.now();
          const leftovers = { startedAt: now - process.uptime() * 1000, now };
          const removed = await runtime.files.removeLeftoverUploads(leftovers);
          if (removed.length > 0)
            runtime.logger.info({ count: removed.length }, 'removed partial uploads left by an earlier process');
          const archives = await runtime.backupArchives.removeLeftovers(leftovers);
          if (archives > 0)
            runtime.logger.info({ count: archives }, 'removed backup archives an earlier process left half stored');
        },
      };
    },
  };
}
