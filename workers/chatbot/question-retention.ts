import type { PatronQuestions } from '../../queries/chatbot/questions.js';

/**
 * How often expired questions are deleted. Reads never show them past their time anyway; this
 * bounds how long one may still sit in the file, and so in a backup's snapshot of it.
 */
export const QUESTION_SWEEP_MS = 60_000;

interface ErrorLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface QuestionRetention {
  /** Stops the timer; settles once a sweep under way has ended, so the log can then be closed. */
  stop(): Promise<void>;
}

/**
 * Deletes the questions past CHATBOT_QUESTION_RETENTION_DAYS at once (settled when that first
 * sweep is) and then every QUESTION_SWEEP_MS, while the server runs: no restart is needed for
 * them to go. A failed sweep is logged and the next one tries again; a sweep still under way when
 * the next is due (a slow database) is not run twice.
 */
export async function startQuestionRetention(
  questions: PatronQuestions,
  logger: ErrorLogger,
  everyMs = QUESTION_SWEEP_MS,
): Promise<QuestionRetention> {
  let running: Promise<void> | null = null;
  const sweep = async () => {
    try {
      const deleted = await questions.sweep();
      if (deleted > 0) logger.info({ deleted }, 'chatbot questions past their retention deleted');
    } catch (error) {
      logger.error({ err: error }, 'the chatbot question retention sweep failed');
    }
  };
  const tick = () => {
    running ??= sweep().finally(() => {
      running = null;
    });
    return running;
  };
  await tick();
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
