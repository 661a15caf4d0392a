import type { Embedder } from '../embedder/port.js';
import { contentTerms } from '../embedder/tokens.js';
import { isQuotable, sentences } from './evidence-sentences.js';
import { NO_ANSWER, type Answerer, type AnswerRequest, type Evidence } from './port.js';
import { cosineSimilarity } from '../embedder/cosine.js';

export { sentences } from './evidence-sentences.js';

const MAX_SENTENCES = 3;
const MAX_SENTENCE_LENGTH = 400;
/** Sentences read per question: five pieces of evidence of 120 words hold about thirty. */
const MAX_CANDIDATES = 40;
/** Without a model: a sentence must score at least this share of the best one to join the answer. */
const RELATIVE_FLOOR = 0.5;
/**
 * With the model: the cosine of question and best sentence (the embedded default's vectors:
 * meaning and words) below which the evidence is taken not to answer. Measured with
 * all-MiniLM-L6-v2 (words weighed 0.5) on test/fixtures/chatbot with its five nearest resources
 * as evidence: the 42 questions in the collection's words scored 0.37 to 0.71 (all kept), the 36
 * in other words 0.27 to 0.47 (33 kept); the 40 questions of bench/retrieval/unanswerable.json
 * 0.08 to 0.48 (28 refused). On bench/retrieval's 300 harder questions 0.913 are answered, and
 * 18 of the 40 refused (bench/README.md, "retrieval"): the model tells a related sentence from an
 * answer less well than it ranks records.
 */
export const ANSWER_THRESHOLD = 0.3;
/** With the model: a sentence joins the best one only when it is at most this much less similar. */
const MARGIN = 0.06;

interface Candidate {
  evidence: number;
  order: number;
  text: string;
  score: number;
}

function clip(sentence: string): string {
  if (sentence.length <= MAX_SENTENCE_LENGTH) return sentence;
  const cut = sentence.slice(0, MAX_SENTENCE_LENGTH);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_SENTENCE_LENGTH / 2))}…`;
}

/** The quotable sentences of the evidence, in evidence order, each once. */
function candidatesOf(evidence: Evidence[]): Candidate[] {
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const piece of evidence) {
    sentences(piece.text).forEach((text, order) => {
      if (!isQuotable(text) || seen.has(text)) return;
      seen.add(text);
      candidates.push({ evidence: piece.number, order, text, score: 0 });
    });
  }
  return candidates.slice(0, MAX_CANDIDATES);
}

/** Cites each chosen sentence, read in a natural order: by evidence rank, then as they stand in their text. */
function compose(chosen: Candidate[]): string[] {
  chosen.sort((a, b) => a.evidence - b.evidence || a.order - b.order);
  return chosen.map((c) => `${clip(c.text)} [${c.evidence}]`);
}

/** The answer's sentences, each with its marker; joined by a space they are the answer. */
type Sentences = string[];

/**
 * The embedded answerer: no network. With an embedder (the embedded default's sentence model)
 * it embeds each quotable sentence of the evidence and keeps the few nearest the question in
 * meaning; below ANSWER_THRESHOLD the evidence does not answer, and it says so. Without one it
 * scores sentences by the question's words they contain. Metadata lines and boilerplate are
 * never quoted. Each sentence is cited with the number of its evidence.
 */
export class ExtractiveAnswerer implements Answerer {
  constructor(private readonly embedder?: Embedder) {}

  async answer(request: AnswerRequest): Promise<string> {
    return (await this.sentencesFor(request)).join(' ');
  }

  /**
   * Sentence by sentence: they are chosen together (each is ranked against all the others), so
   * the first comes once the ranking is done and the rest follow it.
   */
  async *stream(request: AnswerRequest, signal: AbortSignal): AsyncGenerator<string, string> {
    const chosen = await this.sentencesFor(request);
    for (const [index, sentence] of chosen.entries()) {
      if (signal.aborted) break;
      yield index === 0 ? sentence : ` ${sentence}`;
    }
    return chosen.join(' ');
  }

  private async sentencesFor({ question, evidence }: AnswerRequest): Promise<Sentences> {
    if (evidence.length === 0 || contentTerms(question).length === 0) return [NO_ANSWER];
    const candidates = candidatesOf(evidence);
    if (candidates.length === 0) return [NO_ANSWER];
    return this.embedder
      ? this.byMeaning(this.embedder, question, candidates)
      : byWords(question, candidates, evidence);
  }

  private async byMeaning(embedder: Embedder, question: string, candidates: Candidate[]): Promise<Sentences> {
    // The query vector is the one retrieval made a moment ago: the embedding cache has it.
    const [asked] = await embedder.embed([question], 'query');
    // As queries: a visitor waits on them, so the model takes them before indexing's documents
    // (the embedded default's vectors do not depend on the purpose).
    const vectors = await embedder.embed(
      candidates.map((c) => c.text),
      'query',
    );
    candidates.forEach((candidate, index) => (candidate.score = cosineSimilarity(asked, vectors[index])));
    const ranked = [...candidates].sort((a, b) => b.score - a.score || a.evidence - b.evidence || a.order - b.order);
    const best = ranked[0].score;
    if (best < ANSWER_THRESHOLD) return [NO_ANSWER];
    return compose(ranked.filter((c) => c.score >= best - MARGIN).slice(0, MAX_SENTENCES));
  }
}

/** Scores sentences by the question's words they contain: rarer words weigh more, the evidence title helps its sentences. */
function byWords(question: string, candidates: Candidate[], evidence: Evidence[]): Sentences {
  const asked = new Set(contentTerms(question));
  const titleBonus = new Map(
    evidence.map((piece) => {
      const titleTerms = new Set(contentTerms(piece.title));
      return [piece.number, [...asked].filter((t) => titleTerms.has(t)).length * 0.25];
    }),
  );
  const termsOf = candidates.map((c) => new Set(contentTerms(c.text)));
  // How many sentences contain each asked word: a word everywhere says little about any one of them.
  const spread = new Map<string, number>();
  for (const term of asked) spread.set(term, termsOf.filter((terms) => terms.has(term)).length);

  candidates.forEach((candidate, index) => {
    let matched = 0;
    let weight = 0;
    for (const term of asked) {
      if (!termsOf[index].has(term)) continue;
      matched++;
      weight += Math.log(1 + candidates.length / (spread.get(term) ?? 1));
    }
    const length = Math.max(termsOf[index].size, 1);
    candidate.score =
      matched === 0 ? 0 : weight / Math.sqrt(Math.log(2 + length)) + (titleBonus.get(candidate.evidence) ?? 0);
  });

  const ranked = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.evidence - b.evidence || a.order - b.order);
  if (ranked.length === 0) return [NO_ANSWER];
  const floor = ranked[0].score * RELATIVE_FLOOR;
  return compose(ranked.filter((c) => c.score >= floor).slice(0, MAX_SENTENCES));
}
