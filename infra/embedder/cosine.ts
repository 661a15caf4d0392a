/** Cosine similarity of two vectors of one embedder; 0 when either is the zero vector. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa === 0 || bb === 0 ? 0 : dot / Math.sqrt(aa * bb);
}

/**
 * Cosine distance as the vector indexes report it: 0 identical, clamped to [0, 2]; a zero vector
 * is at distance 1 from everything, as sqlite-vec's ranking has it.
 */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  return Math.min(2, Math.max(0, 1 - cosineSimilarity(a, b)));
}
