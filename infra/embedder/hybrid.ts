import { LocalEmbedder } from './local.js';
import type { Embedder, EmbedPurpose } from './port.js';
import { SentenceModel, type SentenceModelOptions } from './sentence-model/client.js';
import { PIECE_WORDS } from './sentence-model/pieces.js';
import { SENTENCE_DIMENSION } from './sentence-model/protocol.js';

/**
 * Weights of the two parts of a vector (each part unit length before weighting). The cosine of
 * two vectors is then (S² cos_meaning + W² cos_words) / (S² + W²): meaning leads, and the
 * words still put a question in a title's exact words ahead of a merely related one. Measured
 * on test/fixtures/chatbot (see the retrieval tests).
 */
export const SEMANTIC_WEIGHT = 1;
export const WORD_WEIGHT = 0.5;

/**
 * The embedded default: the Universal Sentence Encoder lite (meaning, on a worker thread)
 * followed by the hashed word features of LocalEmbedder, weighted and normalised as one
 * vector, so the index still does one cosine kNN.
 */
export class HybridEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly words: LocalEmbedder;
  private readonly sentences: SentenceModel;

  constructor(options: SentenceModelOptions = {}) {
    this.words = new LocalEmbedder();
    this.sentences = new SentenceModel(options);
    this.dimension = SENTENCE_DIMENSION + this.words.dimension;
    // Everything that shapes a vector is in the name, which keys the cache: a change re-embeds.
    this.model = `use-lite-${SENTENCE_DIMENSION}-p${PIECE_WORDS}+${this.words.model}:${SEMANTIC_WEIGHT}/${WORD_WEIGHT}`;
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
