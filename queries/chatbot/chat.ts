import type { AnswerRequest, Evidence } from '../../infra/answerer/port.js';
import { renderAnswer } from './answer-html.js';
import { retrieve, snippet, type RetrievedResource } from './retrieve.js';
import type { ChatbotQueryPorts } from './services.js';

export interface ChatParams {
  question: string;
  siteId?: number;
  siteSlug?: string;
  systemPrompt?: string;
  itemSetIds: number[];
}

export interface ChatSource {
  citation_num: number;
  title: string;
  url: string;
  resource_type: string;
  resource_id: number;
  snippet: string;
}

export interface ChatResponse {
  answer_html: string;
  sources: ChatSource[];
}

/** Resources given to the answerer, nearest first; each is one piece of numbered evidence. */
export const EVIDENCE_COUNT = 5;
export const SOURCE_SNIPPET_LENGTH = 200;

/** The evidence for a question: the nearest resources the filters allow, numbered from 1. */
export interface Gathered {
  retrieved: RetrievedResource[];
  request: AnswerRequest;
}

export async function gatherEvidence(services: ChatbotQueryPorts, params: ChatParams): Promise<Gathered> {
  const retrieved: RetrievedResource[] = (
    await retrieve(services, { text: params.question, filter: { siteId: params.siteId, itemSetIds: params.itemSetIds }, siteSlug: params.siteSlug })
  ).slice(0, EVIDENCE_COUNT);
  const evidence: Evidence[] = retrieved.map((r, index) => ({ number: index + 1, title: r.best.title, text: r.best.text }));
  return { retrieved, request: { question: params.question, evidence, systemPrompt: params.systemPrompt } };
}

/** The rendered answer with the evidence it cited, in citation order. */
export function chatResponse(answer: string, retrieved: RetrievedResource[]): ChatResponse {
  const { html, cited } = renderAnswer(answer, retrieved.length);
  return {
    answer_html: html,
    sources: cited.map((n) => {
      const { best, url } = retrieved[n - 1];
      return {
        citation_num: n,
        title: best.title,
        url,
        resource_type: best.resourceType,
        resource_id: best.resourceId,
        snippet: snippet(best.text, SOURCE_SNIPPET_LENGTH),
      };
    }),
  };
}

/**
 * Retrieves evidence with the request's filters, numbers it, asks the answerer, and returns the
 * rendered answer with the evidence it cited, in citation order.
 */
export async function answerQuestion(services: ChatbotQueryPorts, params: ChatParams): Promise<ChatResponse> {
  const { retrieved, request } = await gatherEvidence(services, params);
  return chatResponse(await services.answerer.answer(request), retrieved);
}
