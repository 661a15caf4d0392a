import type { AppModule } from '../kernel.js';
import { removeLeftoverUploads } from '../../infra/file-storage/partial-uploads.js';
import { healthRoutes } from '../../routes/health/index.js';
import { filesDir } from '../runtime.js';

/** What operators look at and rely on: GET /health, and a start that clears what a crash left. */
export const operationsModule: AppModule = {
  name: 'operations',
  routes: healthRoutes,
  async startWorkers(runtime) {
    // Wall-clock times, not runtime.clock: they are compared with the files' modification times.
    const now = Date.now();
    const removed = await removeLeftoverUploads(filesDir(runtime.config), { startedAt: now - process.uptime() * 1000, now });
    if (removed.length > 0) runtime.logger.info({ count: removed.length }, 'removed partial uploads left by an earlier process');
  },
};
