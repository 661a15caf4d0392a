/** One batch of pieces of text for the model thread; it answers each batch before the next is sent. */
export interface ModelRequest {
  id: number;
  texts: string[];
}

/** The vectors of a batch, row after row, in one transferable array. */
export type ModelReply = { id: number; vectors: Float32Array } | { id: number; error: string };

/** Sent once, when the model has loaded (or failed to): from then on a batch takes a bounded time. */
export interface ModelLoaded {
  loaded: true;
}

/** Universal Sentence Encoder lite gives 512 numbers per text. */
export const SENTENCE_DIMENSION = 512;
