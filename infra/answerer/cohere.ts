import type { CohereClient } from 'cohere-ai';
import { providerError } from '../embedder/cohere.js';
import { DEFAULT_SYSTEM_PROMPT, type Answerer, type AnswerRequest } from './port.js';

interface Citation {
  end: number;
  documentIds: string[];
}

/**
 * Puts [N] markers after each cited span, from Cohere's citations (document ids are the
 * evidence numbers), unless the text already carries markers of its own.
 */
export function withMarkers(text: string, citations: Citation[]): string {
  if (/\[\d+\]/.test(text) || citations.length === 0) return text;
  const byEnd = [...citations].sort((a, b) => b.end - a.end);
  let out = text;
  for (const citation of byEnd) {
    const numbers = [
      ...new Set(citation.documentIds.map((id) => id.replace(/^doc_?/, '')).filter((id) => /^\d+$/.test(id))),
    ];
    if (numbers.length === 0) continue;
    const end = Math.min(Math.max(citation.end, 0), out.length);
    out = `${out.slice(0, end)}${numbers.map((n) => `[${n}]`).join('')}${out.slice(end)}`;
  }
  return out;
}

/** Cohere chat with the evidence as documents; system_prompt replaces the default preamble. */
export class CohereAnswerer implements Answerer {
  constructor(
    private readonly client: CohereClient,
    private readonly model = 'command-r-plus',
  ) {}

  private chatRequest({ question, evidence, systemPrompt }: AnswerRequest) {
    return {
      model: this.model,
      message: question,
      preamble: systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      documents: evidence.map((e) => ({ id: String(e.number), title: e.title, snippet: e.text })),
      temperature: 0.2,
    };
  }

  async answer(request: AnswerRequest): Promise<string> {
    try {
      const response = await this.client.chat(this.chatRequest(request));
      return withMarkers(response.text, response.citations ?? []);
    } catch (error) {
      throw providerError('answering', error);
    }
  }

  /**
   * chatStream: the text as Cohere writes it, then the whole answer from its stream-end event,
   * with the markers its citations give (they arrive in pieces of their own, so the pieces of text
   * carry none). The signal aborts the request itself, so a client that went away costs no more
   * tokens.
   */
  async *stream(request: AnswerRequest, signal: AbortSignal): AsyncGenerator<string, string> {
    try {
      const events = await this.client.chatStream(this.chatRequest(request), { abortSignal: signal });
      for await (const event of events) {
        if (signal.aborted) return '';
        if (event.eventType === 'text-generation') yield event.text;
        else if (event.eventType === 'stream-end') {
          if (event.finishReason === 'ERROR' || event.finishReason === 'ERROR_TOXIC')
            throw new Error(`stream ended with ${event.finishReason}`);
          return withMarkers(event.response.text, event.response.citations ?? []);
        }
      }
    } catch (error) {
      if (signal.aborted) return '';
      throw providerError('answering', error);
    }
    if (signal.aborted) return '';
    throw providerError('answering', new Error('the stream ended without its stream-end event'));
  }
}
