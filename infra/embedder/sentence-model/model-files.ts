import { projectFile } from '../../project-root.js';

/**
 * A sentence model in ONNX with its Hugging Face `tokenizer.json`, and how its card says to use
 * it. Plain data: it is handed to the model thread as its workerData.
 */
export interface SentenceModelSpec {
  /** Names the model in the embedder's name (and so in the embedding cache's and the index's keys). */
  name: string;
  /** The folder holding `model.onnx` and `tokenizer.json`. */
  dir: string;
  /** How a text's vector is made from its tokens' (the model card's pooling). */
  pooling: 'mean' | 'cls';
  /** Put before a query and before a document's piece, where the model was trained with them. */
  queryPrefix: string;
  documentPrefix: string;
  /** Tokens read at most, special tokens included; the rest of a piece is cut. */
  maxTokens: number;
  /** The files' SHA-256, checked by test/infra/embedder/model-files.test.ts. */
  sha256: { model: string; tokenizer: string };
}

/**
 * The embedded default: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), int8-quantised
 * ONNX as langchain4j ships it on Maven Central (models/extract.sh), committed in models/ so
 * that `npm ci` alone brings it. Chosen on bench/retrieval's held-out questions (bench/README.md).
 */
export const DEFAULT_SENTENCE_MODEL: SentenceModelSpec = {
  name: 'all-minilm-l6-v2-q',
  dir: projectFile('models/all-minilm-l6-v2-q'),
  pooling: 'mean',
  queryPrefix: '',
  documentPrefix: '',
  maxTokens: 256,
  sha256: {
    model: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
    tokenizer: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
  },
};
