import type { AppModule } from './kernel.js';
import { usersModule } from './modules/core.js';
import { platformModule } from './modules/platform.js';
import { blogModule } from './modules/blog.js';
import { assetsModule } from './modules/assets.js';
import { backupsModule } from './modules/backups.js';
import { pageVersioningModule } from './modules/page-versioning.js';
import { chatbotModule } from './modules/chatbot.js';
import { directoryModule } from './modules/directory.js';
import { createOperationsModule } from './modules/operations.js';
import { readingProgress } from '../queries/chatbot/reading-progress.js';

/** Every feature module, in start order. Add a module here with one import and one entry. */
export const appModules: readonly AppModule[] = [
  usersModule,
  platformModule,
  blogModule,
  assetsModule,
  backupsModule,
  pageVersioningModule,
  chatbotModule,
  directoryModule,
  // /health checks the vector index the chatbot module built in the same runtime.
  createOperationsModule({
    vectorIndex: (runtime) => runtime.module(chatbotModule).services.vectorIndex,
    chatbotReading: async (runtime) => ({
      ...(await readingProgress(runtime.documents, runtime.clock.now())),
      ...runtime.module(chatbotModule).skippedWrites(),
    }),
  }),
];
