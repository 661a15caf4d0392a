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
  stop(): void;
}

/**
 * Deletes the questions past CHATBOT_QUESTION_RETENTION_DAYS at once and then every
 * QUESTION_SWEEP_MS, while the server runs: no restart is needed for them to go. A failed sweep
 * is logged and the next one tries again.
 */
export function startQuestionRetention(
  questions: PatronQuestions,
  logger: ErrorLogger,
  everyMs = QUESTION_SWEEP_MS,
): QuestionRetention {
  const sweep = () => {
    try {
      const deleted = questions.sweep();
      if (deleted > 0) logger.info({ deleted }, 'chatbot questions past their retention deleted');
    } catch (error) {
      logger.error({ err: error }, 'the chatbot question retention sweep failed');
    }
  };
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
