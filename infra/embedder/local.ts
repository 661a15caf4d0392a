import type { Embedder, EmbedPurpose } from './port.js';
import { contentTerms } from './tokens.js';

const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
/** Spread over a word's character n-grams, so near spellings (plurals, typos) still meet. */
const CHAR_WEIGHT = 0.45;

/** FNV-1a: stable across runs and platforms, which is what makes the vectors deterministic. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The embedded default: hashed word, word-bigram and character n-gram features with sublinear
 * term frequency and a length-based rarity weight, L2-normalised. It needs no network and no
 * model file, and two runs give the same vector for the same text.
 */
export class LocalEmbedder implements Embedder {
  readonly model: string;

  constructor(readonly dimension = 384) {
    this.model = `local-hashed-ngrams-v1-${dimension}`;
  }

  // Documents and queries get the same vector: the features are symmetric.
  async embed(texts: string[], _purpose?: EmbedPurpose): Promise<Float32Array[]> {
    return texts.map((text) => this.vector(text));
  }

  vector(text: string): Float32Array {
    const vector = new Float32Array(this.dimension);
    const terms = contentTerms(text);
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      const weight = (1 + Math.log(count)) * rarity(term);
      this.add(vector, `w:${term}`, WORD_WEIGHT * weight);
      const grams = charGrams(term);
      for (const gram of grams) this.add(vector, `c:${gram}`, (CHAR_WEIGHT * weight) / Math.sqrt(grams.length));
    }
    for (let i = 1; i < terms.length; i++) this.add(vector, `b:${terms[i - 1]} ${terms[i]}`, BIGRAM_WEIGHT);
    return normalise(vector);
  }

  private add(vector: Float32Array, feature: string, weight: number): void {
    const h = hash(feature);
    // One hash bit picks the sign so colliding features cancel rather than pile up.
    vector[h % this.dimension] += h & 0x80000000 ? -weight : weight;
  }

  async close(): Promise<void> {}
}

/** Short words are usually common; without corpus statistics, length stands in for IDF. */
function rarity(term: string): number {
  if (/^\d+$/.test(term)) return 1.2;
  return 0.6 + Math.min(term.length, 10) * 0.08;
}

function charGrams(term: string): string[] {
  if (term.length < 4) return [];
  const padded = `#${term}#`;
  const grams: string[] = [];
  for (let i = 0; i + 4 <= padded.length; i++) grams.push(padded.slice(i, i + 4));
  return grams;
}

export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const inverse = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= inverse;
  return vector;
}
