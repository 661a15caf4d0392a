/** What a text is embedded for: Cohere embeds stored chunks and search queries differently. */
export type EmbedPurpose = 'document' | 'query';

/**
 * Turns texts into vectors for the vector index. Every vector of one embedder has the same
 * dimension; callers compare them by cosine.
 */
export interface Embedder {
  /** Names the model; part of the cache key, so switching models never serves stale vectors. */
  readonly model: string;
  readonly dimension: number;
  embed(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]>;
  /**
   * Stand-in vectors of the same dimension available at once, from what is cheap to compute
   * (the embedded default's word features), for an embedder whose model is slow: the index
   * holds them until `embed` gives the real ones. Absent when `embed` is all there is.
   */
  provisional?(texts: string[]): Float32Array[];
  /**
   * Query vectors for the chunks of another model this embedder can still search (an index not
   * yet read again after an upgrade): from the features both share, in that model's layout and
   * of this embedder's dimension; null when it cannot. Absent when it never can.
   */
  legacyQuery?(model: string, texts: string[]): Float32Array[] | null;
  close(): Promise<void>;
}
