import { LocalEmbedder } from './local.js';
import type { Embedder, EmbedPurpose } from './port.js';
import { SentenceModel, type SentenceModelOptions } from './sentence-model/client.js';
import { SENTENCE_DIMENSION } from './sentence-model/protocol.js';

/**
 * Weights of the two parts of a vector (each part unit length before weighting). The cosine of
 * two vectors is then (S² cos_meaning + W² cos_words) / (S² + W²): meaning leads, and the
 * words still put a question in a title's exact words ahead of a merely related one. On
 * bench/retrieval's tuning half (questions sharing no word with their record) any weight of the
 * words costs a little (0.2: 0.003 of MRR, 0.5: 0.035), but a resource the model has not read
 * yet is searched by its words alone (its stand-in vectors), and below 0.4 such a resource no
 * longer comes first for its own words (test/workers/chatbot/provisional-rank.test.ts;
 * bench/README.md, "retrieval").
 */
export const SEMANTIC_WEIGHT = 1;
export const WORD_WEIGHT = 0.5;
/**
 * The words' features take what the model leaves of 896 numbers, the vectors' length since the
 * first model (512 + 384): an index read by the previous model keeps its dimension, and so can
 * be searched by its words while the new model reads the collection again (`legacyQuery`).
 */
export const HYBRID_DIMENSION = 896;
const WORD_DIMENSION = HYBRID_DIMENSION - SENTENCE_DIMENSION;

/** A hybrid's name: its model, the model's dimension, then its word features' (local.ts) name and dimension. */
const HYBRID_NAME = /^.+-(\d+)-p\d+\+(local-hashed-ngrams-v1)-(\d+):[\d.]+\/[\d.]+$/;

/**
 * The embedded default: the sentence model (meaning, on worker threads; model-files.ts)
 * followed by the hashed word features of LocalEmbedder, weighted and normalised as one
 * vector, so the index still does one cosine kNN.
 */
export class HybridEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly words: LocalEmbedder;
  private readonly sentences: SentenceModel;

  constructor(options: SentenceModelOptions = {}) {
    this.words = new LocalEmbedder(WORD_DIMENSION);
    this.sentences = new SentenceModel(options);
    this.dimension = SENTENCE_DIMENSION + this.words.dimension;
    // Everything that shapes a vector is in the name, which keys the cache: a change re-embeds.
    this.model = `${this.sentences.spec.name}-${SENTENCE_DIMENSION}-p${this.sentences.pieceWords}+${this.words.model}:${SEMANTIC_WEIGHT}/${WORD_WEIGHT}`;
  }

  async embed(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    const meanings = await this.sentences.embed(texts, purpose);
    return texts.map((text, index) => this.combine(meanings[index], this.words.vector(text)));
  }

  /**
   * Vectors from the words alone (the meaning part zero), available at once: a resource is
   * searchable by its words while the model has not read it yet.
   */
  provisional(texts: string[]): Float32Array[] {
    return texts.map((text) => this.combine(null, this.words.vector(text)));
  }

  /**
   * Query vectors for the chunks of an earlier hybrid (another model, the same word features):
   * the words alone, where that hybrid put them, so that its chunks are found by their words
   * until the new model has read them again. Null for a model of another kind or dimension.
   */
  legacyQuery(model: string, texts: string[]): Float32Array[] | null {
    const match = HYBRID_NAME.exec(model);
    if (!match || model === this.model) return null;
    const [meaning, words] = [Number(match[1]), Number(match[3])];
    if (meaning + words !== this.dimension || `${match[2]}-${words}` !== new LocalEmbedder(words).model) return null;
    const features = new LocalEmbedder(words);
    return texts.map((text) => {
      const vector = new Float32Array(this.dimension);
      vector.set(features.vector(text), meaning);
      return vector;
    });
  }

  /** Threads the model has started (tests check a crashed one is replaced). */
  get modelThreadsStarted(): number {
    return this.sentences.threadsStarted;
  }

  async close(): Promise<void> {
    await this.sentences.close();
  }

  private combine(meaning: Float32Array | null, words: Float32Array): Float32Array {
    const vector = new Float32Array(this.dimension);
    let squares = 0;
    if (meaning) {
      for (let i = 0; i < SENTENCE_DIMENSION; i++) {
        const value = meaning[i] * SEMANTIC_WEIGHT;
        vector[i] = value;
        squares += value * value;
      }
    }
    for (let i = 0; i < words.length; i++) {
      const value = words[i] * WORD_WEIGHT;
      vector[SENTENCE_DIMENSION + i] = value;
      squares += value * value;
    }
    if (squares > 0) {
      const inverse = 1 / Math.sqrt(squares);
      for (let i = 0; i < vector.length; i++) vector[i] *= inverse;
    }
    return vector;
  }
}
