/** A resource an answer cited, as the chat answered it. */
export interface CitedResource {
  resource_type: string;
  resource_id: number;
  title: string;
  url: string;
}

/** One question a patron asked: never the client address, a cookie or anything of the request. */
export interface QuestionEntry {
  question: string;
  /** When it was asked (the runtime's clock). */
  askedAt: Date;
  siteId: number | null;
  /** True when the answer cited at least one resource; false when the collection had nothing. */
  answered: boolean;
  sources: CitedResource[];
}

export interface RecordedQuestion extends QuestionEntry {
  id: number;
}

/** Which questions a list or a summary covers; `since` inclusive, `until` exclusive. */
export interface QuestionFilter {
  answered?: boolean;
  siteId?: number;
  since?: Date;
  until?: Date;
}

export interface QuestionPage {
  questions: RecordedQuestion[];
  total: number;
}

export interface CitationCount {
  resource_type: string;
  resource_id: number;
  title: string;
  citations: number;
}

export interface RepeatedQuestion {
  question: string;
  count: number;
  last_asked_at: Date;
}

/** Case, runs of spaces and end punctuation do not make another question (every adapter groups by it). */
export function normalizeQuestion(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s?!.]+$/u, '');
}

/** How many texts `texts` reads per query: what a summary holds of them at once. */
export const TEXTS_PER_READ = 1000;

/**
 * Where patrons' questions are kept: outside the event log, because a question may hold personal
 * data and must be really gone once its retention has passed, which an append-only log (and every
 * backup of it) cannot promise. `deleteAskedBefore` removes rows for good, content included.
 * Asynchronous: the embedded adapter is a SQLite file of one host, the shared one a PostgreSQL
 * database every app server reaches (QUESTION_LOG_URL).
 */
export interface QuestionLog {
  record(entry: QuestionEntry): Promise<void>;
  list(filter: QuestionFilter, skip: number, limit: number): Promise<QuestionPage>;
  /**
   * Every matching question text, for the word counts of a summary: read TEXTS_PER_READ at a
   * time as the caller takes them, so a large log is never held whole.
   */
  texts(filter: QuestionFilter): AsyncIterable<string>;
  count(filter: QuestionFilter): Promise<number>;
  mostCited(filter: QuestionFilter, limit: number): Promise<CitationCount[]>;
  /** The unanswered questions asked most often, the same text told apart from case, spaces and end punctuation. */
  mostAskedUnanswered(filter: QuestionFilter, limit: number): Promise<RepeatedQuestion[]>;
  /** Deletes every question asked before `cutoff`; answers how many went. */
  deleteAskedBefore(cutoff: Date): Promise<number>;
  close(): Promise<void>;
}
