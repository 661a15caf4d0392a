import type { AppConfig } from '../config.js';
import { postgresLocation } from '../postgres-url.js';
import type { QuestionLog } from './port.js';
import { questionLogFile, SqliteQuestionLog } from './sqlite.js';

/**
 * The question log the configuration picks: QUESTION_LOG_URL's PostgreSQL database (postgres://
 * or postgresql://, `?schema=` as for EVENTSTORE_URL; its tables made now, so an unreachable one stops the start), shared by every
 * app server; else DATA_DIR/chatbot-questions.sqlite, this host's own.
 */
export async function createQuestionLog(config: AppConfig): Promise<QuestionLog> {
  if (config.questionLogUrl) {
    // The driver and the adapter are loaded only when configured.
    const { PostgresQuestionLog } = await import('./postgres.js');
    const { connectionString, schema } = postgresLocation(config.questionLogUrl, 'QUESTION_LOG_URL');
    const log = new PostgresQuestionLog(connectionString, { schema });
    try {
      await log.schemaReady();
    } catch (error) {
      await log.close();
      throw error;
    }
    return log;
  }
  return new SqliteQuestionLog(questionLogFile(config));
}
