export interface ChunkOptions {
  /** Words per chunk. */
  size: number;
  /** Words each chunk repeats from the end of the one before, so no sentence is cut off from its context. */
  overlap: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { size: 120, overlap: 30 };

/**
 * Splits text into overlapping windows of words. Whitespace inside a chunk is normalised to
 * single spaces except line breaks, which the extractive answerer uses as sentence boundaries.
 */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  if (options.size < 1 || options.overlap < 0 || options.overlap >= options.size) {
    throw new Error('Chunk size must be positive and larger than the overlap.');
  }
  const tokens = text.split(/([ \t\f\v\r]+|\n+)/).filter((t) => t.length > 0);
  const words: { word: string; newlineBefore: boolean }[] = [];
  let newline = false;
  for (const token of tokens) {
    if (/^\s+$/.test(token)) {
      if (token.includes('\n')) newline = true;
      continue;
    }
    words.push({ word: token, newlineBefore: newline });
    newline = false;
  }
  if (words.length === 0) return [];
  const chunks: string[] = [];
  const step = options.size - options.overlap;
  for (let start = 0; ; start += step) {
    const window = words.slice(start, start + options.size);
    chunks.push(window.map((w, i) => (i > 0 ? (w.newlineBefore ? '\n' : ' ') : '') + w.word).join(''));
    if (start + options.size >= words.length) break;
  }
  return chunks;
}
