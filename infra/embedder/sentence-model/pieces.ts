/**
 * The model's cost grows with the length of what it reads, and one call holds its thread until
 * it ends: texts are cut into pieces of at most this many words, each word at most
 * MAX_WORD_CHARS characters, so that a batch of pieces takes a bounded time.
 */
export const PIECE_WORDS = 40;
const MAX_WORD_CHARS = 40;
const MEANINGFUL = /[\p{L}\p{N}]/u;

/**
 * The pieces of a text, in order. A text with no letter or digit has none: the model throws on
 * an empty text (and silently drops the row of one at the end of a batch), and there is no
 * meaning to embed in it anyway.
 */
export function piecesOf(text: string, wordsPerPiece = PIECE_WORDS): string[] {
  const words = text
    .split(/\s+/)
    .filter((word) => MEANINGFUL.test(word))
    .map((word) => (word.length > MAX_WORD_CHARS ? word.slice(0, MAX_WORD_CHARS) : word));
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += wordsPerPiece)
    pieces.push(words.slice(start, start + wordsPerPiece).join(' '));
  return pieces;
}
