/** One batch of pieces of text for the model thread; it answers each batch before the next is sent. */
export interface ModelRequest {
  id: number;
  texts: string[];
}

/**
 * Asks the thread to end once its batch (or its load) is done, releasing the model first. A
 * thread is never terminated while ONNX Runtime runs on it: the run's completion would reach a
 * torn-down thread, and the native error thrown there aborts the whole process.
 */
export interface ModelClose {
  close: true;
}

/** The vectors of a batch, row after row, in one transferable array. */
export type ModelReply = { id: number; vectors: Float32Array } | { id: number; error: string };

/** Sent once, when the model has loaded (or failed to): from then on a batch takes a bounded time. */
export interface ModelLoaded {
  loaded: true;
}

/** The sentence models read here (MiniLM, e5-small, bge-small) give 384 numbers per text. */
export const SENTENCE_DIMENSION = 384;
