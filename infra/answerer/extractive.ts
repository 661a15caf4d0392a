import { contentTerms } from '../embedder/tokens.js';
import { NO_ANSWER, type Answerer, type AnswerRequest } from './port.js';

const MAX_SENTENCES = 3;
const MAX_SENTENCE_LENGTH = 400;
/** A sentence must score at least this share of the best one to join the answer. */
const RELATIVE_FLOOR = 0.5;

interface Candidate {
  evidence: number;
  order: number;
  text: string;
  score: number;
}

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function clip(sentence: string): string {
  if (sentence.length <= MAX_SENTENCE_LENGTH) return sentence;
  const cut = sentence.slice(0, MAX_SENTENCE_LENGTH);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_SENTENCE_LENGTH / 2))}…`;
}

/**
 * The embedded answerer: no model, no network. It scores every sentence of the evidence by the
 * question's words it contains (rarer words weigh more, the evidence title helps its sentences),
 * keeps the best few, and cites the evidence each came from. No sentence sharing a meaningful
 * word with the question means the evidence does not answer, and it says so.
 */
export class ExtractiveAnswerer implements Answerer {
  async answer({ question, evidence }: AnswerRequest): Promise<string> {
    const asked = new Set(contentTerms(question));
    if (asked.size === 0 || evidence.length === 0) return NO_ANSWER;

    const candidates: Candidate[] = [];
    for (const piece of evidence) {
      const titleTerms = new Set(contentTerms(piece.title));
      const titleBonus = [...asked].filter((t) => titleTerms.has(t)).length * 0.25;
      sentences(piece.text).forEach((text, order) => candidates.push({ evidence: piece.number, order, text, score: titleBonus }));
    }
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
      candidate.score = matched === 0 ? 0 : weight / Math.sqrt(Math.log(2 + length)) + candidate.score;
    });

    const ranked = candidates.filter((c) => c.score > 0).sort((a, b) => b.score - a.score || a.evidence - b.evidence || a.order - b.order);
    if (ranked.length === 0) return NO_ANSWER;
    const floor = ranked[0].score * RELATIVE_FLOOR;
    const seen = new Set<string>();
    const chosen = ranked.filter((c) => {
      if (c.score < floor || seen.has(c.text)) return false;
      seen.add(c.text);
      return true;
    }).slice(0, MAX_SENTENCES);
    // Read in a natural order: by evidence rank, then as the sentences stand in their text.
    chosen.sort((a, b) => a.evidence - b.evidence || a.order - b.order);
    return chosen.map((c) => `${clip(c.text)} [${c.evidence}]`).join(' ');
  }
}
