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
  /** Present (true) only while the collection is still being read: the answer may miss items not read yet. */
  still_reading?: true;
}

/** Resources given to the answerer, nearest first; each is one piece of numbered evidence. */
export const EVIDENCE_COUNT = 5;
export const SOURCE_SNIPPET_LENGTH = 200;

/** The evidence for a question: the nearest resources the filters allow, numbered from 1. */
export interface Gathered {
  retrieved: RetrievedResource[];
  request: AnswerRequest;
  /** Whether the collection was still being read: the answer says so. */
  stillReading: boolean;
}

export async function gatherEvidence(
  services: Pick<ChatbotQueryPorts, 'embedder' | 'vectorIndex' | 'indexModels'> & {
    reading: Pick<ChatbotQueryPorts['reading'], 'stillReading'>;
  },
  params: ChatParams,
): Promise<Gathered> {
  // Asked beside the retrieval, so it adds no wait.
  const [found, stillReading] = await Promise.all([
    retrieve(services, {
      text: params.question,
      filter: { siteId: params.siteId, itemSetIds: params.itemSetIds },
      siteSlug: params.siteSlug,
    }),
    services.reading.stillReading(),
  ]);
  const retrieved: RetrievedResource[] = found.slice(0, EVIDENCE_COUNT);
  const evidence: Evidence[] = retrieved.map((r, index) => ({
    number: index + 1,
    title: r.best.title,
    text: r.best.text,
  }));
  return {
    retrieved,
    request: { question: params.question, evidence, systemPrompt: params.systemPrompt },
    stillReading,
  };
}

/** The rendered answer with the evidence it cited, in citation order, and `still_reading` while the collection is being read. */
export function chatResponse(answer: string, retrieved: RetrievedResource[], stillReading = false): ChatResponse {
  const { html, cited } = renderAnswer(answer, retrieved.length);
  const response: ChatResponse = {
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
  if (stillReading) response.still_reading = true;
  return response;
}

/**
 * Retrieves evidence with the request's filters, numbers it, asks the answerer, and returns the
 * rendered answer with the evidence it cited, in citation order.
 */
export async function answerQuestion(services: ChatbotQueryPorts, params: ChatParams): Promise<ChatResponse> {
  const { retrieved, request, stillReading } = await gatherEvidence(services, params);
  return chatResponse(await services.answerer.answer(request), retrieved, stillReading);
}
