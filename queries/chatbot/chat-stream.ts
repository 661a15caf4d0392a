import type { Answerer, AnswerRequest } from '../../infra/answerer/port.js';
import { chatResponse, gatherEvidence, type ChatParams, type ChatResponse, type ChatSource } from './chat.js';
import type { ChatbotQueryPorts } from './services.js';

/** What a streamed answer is made of, in this order: text pieces, the cited sources, the whole answer. */
export type ChatStreamEvent =
  | { event: 'text'; data: { text: string } }
  | { event: 'sources'; data: { sources: ChatSource[] } }
  | { event: 'end'; data: ChatResponse };

/** An answerer without a stream of its own streams its whole answer as one piece. */
async function* wholeAnswer(answerer: Answerer, request: AnswerRequest): AsyncGenerator<string, string> {
  const answer = await answerer.answer(request);
  yield answer;
  return answer;
}

/**
 * The chat answer as events: the answerer's text in pieces as it produces them, then the cited
 * sources, then the response answerQuestion gives for the same answer. Once the signal aborts (the
 * client went away) it asks the answerer for nothing more and ends without its last events.
 */
export async function* streamAnswer(
  services: ChatbotQueryPorts,
  params: ChatParams,
  signal: AbortSignal,
): AsyncGenerator<ChatStreamEvent, void> {
  const { retrieved, request, stillReading } = await gatherEvidence(services, params);
  if (signal.aborted) return;
  const answerer = services.answerer;
  const pieces = answerer.stream ? answerer.stream(request, signal) : wholeAnswer(answerer, request);
  try {
    for (;;) {
      const next = await pieces.next();
      if (signal.aborted) return;
      if (next.done) {
        const response = await services.questions.recorded(params, chatResponse(next.value, retrieved, stillReading));
        yield { event: 'sources', data: { sources: response.sources } };
        yield { event: 'end', data: response };
        return;
      }
      if (next.value !== '') yield { event: 'text', data: { text: next.value } };
    }
  } finally {
    // Ends the answerer's own stream (a provider's connection) when this one ends early.
    await pieces.return('');
  }
}
