/** One numbered piece of evidence: the answer cites it as [number]. */
export interface Evidence {
  number: number;
  title: string;
  text: string;
}

export interface AnswerRequest {
  question: string;
  evidence: Evidence[];
  /** Replaces the default system prompt for this request. */
  systemPrompt?: string;
}

/**
 * Answers a question from numbered evidence, citing it with [N] markers in plain text (the
 * route escapes it and renders the markers). Says so plainly when the evidence does not answer.
 */
export interface Answerer {
  answer(request: AnswerRequest): Promise<string>;
  /**
   * The same answer as it is produced: yields pieces of its text in order, and returns the whole
   * answer, which is what answer() gives (a provider may add the [N] markers only at the end, so
   * the pieces need not join into it). Stops early, throwing nothing, once the signal aborts.
   * Optional: without it a caller streams answer()'s text as one piece.
   */
  stream?(request: AnswerRequest, signal: AbortSignal): AsyncGenerator<string, string>;
}

export const DEFAULT_SYSTEM_PROMPT =
  "You are the assistant of a library and museum website. Answer the visitor's question using only the " +
  'documents provided, which come from the collection. Cite every statement with the number of the document ' +
  'it comes from, written as [N]. If the documents do not answer the question, say so plainly and do not guess.';

export const NO_ANSWER = 'I could not find an answer to that question in the collection.';
