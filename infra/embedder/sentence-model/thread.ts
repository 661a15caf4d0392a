import { Tokenizer } from '@huggingface/tokenizers';
import { Type } from '@sinclair/typebox';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { SentenceModelSpec } from './model-files.js';
import {
  SENTENCE_DIMENSION,
  type ModelClose,
  type ModelLoaded,
  type ModelReply,
  type ModelRequest,
} from './protocol.js';
import { errorMessage } from '../../../infra/errors.js';
import { parseChecked } from '../../checked-json.js';

/**
 * The model thread: a sentence-transformers model in ONNX (the spec in workerData, by default
 * all-MiniLM-L6-v2 int8 from models/), tokenised by its own `tokenizer.json`, run by ONNX
 * Runtime on this thread alone (one intra-op thread: the client decides how many model threads
 * the cores can take), pooled as its card says and L2-normalised. It embeds each batch it is
 * sent; the client sends only non-empty pieces of bounded length, one batch at a time.
 */
const port = parentPort;
if (!port) throw new Error('The sentence model runs in a worker thread.');
// Handed over by start-thread.ts, which is typed; a structured clone keeps no type.
const spec = workerData as SentenceModelSpec;

/** What the tokenizer takes of tokenizer.json at least: its model. */
const TokenizerFile = Type.Object({ model: Type.Object({}) });

interface Loaded {
  session: InferenceSession;
  tokenizer: Tokenizer;
  /** Whether the graph takes token_type_ids (BERT exports do; all zeros for one sentence). */
  tokenTypes: boolean;
}

async function load(): Promise<Loaded> {
  const [tokenizerJson, session] = await Promise.all([
    readFile(join(spec.dir, 'tokenizer.json'), 'utf8'),
    InferenceSession.create(join(spec.dir, 'model.onnx'), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Warnings only (an unused initializer) would go to stderr.
      logSeverityLevel: 3,
    }),
  ]);
  // A file of the model's folder: checked for the part every tokenizer.json has, not cast.
  const tokenizer = parseChecked(TokenizerFile, tokenizerJson);
  if (!tokenizer.ok) throw new Error(`${join(spec.dir, 'tokenizer.json')} is not a tokenizer: ${tokenizer.problem}.`);
  const loaded: Loaded = {
    session,
    tokenizer: new Tokenizer(tokenizer.value, {}),
    tokenTypes: session.inputNames.includes('token_type_ids'),
  };
  // The first run plans the graph's memory: done here, it is not the first query's wait.
  await run(loaded, ['warm up']);
  return loaded;
}

const loading = load();
// A failed load is answered per batch below.
loading.then(
  () => port.postMessage({ loaded: true } satisfies ModelLoaded),
  () => port.postMessage({ loaded: true } satisfies ModelLoaded),
);

/** The batch being embedded (the client sends one at a time), so that a close waits for it. */
let working: Promise<unknown> = loading.catch(() => {});

port.on('message', (message: ModelRequest | ModelClose) => {
  if ('close' in message) {
    void working.then(close);
    return;
  }
  working = answer(message).then((reply) => {
    // Made with new Float32Array(n), so its buffer is an ArrayBuffer and can be handed over without a copy.
    if ('vectors' in reply) port.postMessage(reply, [reply.vectors.buffer as ArrayBuffer]);
    else port.postMessage(reply);
  });
});

/** Releases the model once no run is in flight (ModelClose says why), then ends the thread. */
async function close(): Promise<void> {
  try {
    await (await loading).session.release();
  } catch {
    // A model that failed to load has nothing to release.
  }
  process.exit(0);
}

async function answer({ id, texts }: ModelRequest): Promise<ModelReply> {
  try {
    return { id, vectors: await run(await loading, texts) };
  } catch (error) {
    return { id, error: errorMessage(error) };
  }
}

/** The token ids of a text, cut to the model's length with its closing special token kept. */
function tokenIds(tokenizer: Tokenizer, text: string): number[] {
  const { ids } = tokenizer.encode(text);
  return ids.length <= spec.maxTokens ? ids : [...ids.slice(0, spec.maxTokens - 1), ids[ids.length - 1]];
}

/** The normalised vectors of `texts`, row after row. */
async function run({ session, tokenizer, tokenTypes }: Loaded, texts: string[]): Promise<Float32Array> {
  const encoded = texts.map((text) => tokenIds(tokenizer, text));
  const rows = texts.length;
  const length = Math.max(...encoded.map((ids) => ids.length));
  const ids = new BigInt64Array(rows * length);
  const mask = new BigInt64Array(rows * length);
  encoded.forEach((row, r) =>
    row.forEach((id, i) => {
      ids[r * length + i] = BigInt(id);
      mask[r * length + i] = 1n;
    }),
  );
  const shape = [rows, length];
  const feeds: Record<string, Tensor> = {
    input_ids: new Tensor('int64', ids, shape),
    attention_mask: new Tensor('int64', mask, shape),
  };
  if (tokenTypes) feeds.token_type_ids = new Tensor('int64', new BigInt64Array(rows * length), shape);
  const outputs = await session.run(feeds);
  const hidden = outputs[session.outputNames[0]];
  if (!(hidden?.data instanceof Float32Array) || hidden.dims.length !== 3 || hidden.dims[2] !== SENTENCE_DIMENSION)
    throw new Error(`The sentence model gave no [texts, tokens, ${SENTENCE_DIMENSION}] float32 output.`);
  const states = hidden.data;
  const vectors = new Float32Array(rows * SENTENCE_DIMENSION);
  for (let r = 0; r < rows; r++) {
    const vector = vectors.subarray(r * SENTENCE_DIMENSION, (r + 1) * SENTENCE_DIMENSION);
    const tokens = spec.pooling === 'cls' ? 1 : encoded[r].length;
    for (let t = 0; t < tokens; t++) {
      const state = states.subarray((r * length + t) * SENTENCE_DIMENSION, (r * length + t + 1) * SENTENCE_DIMENSION);
      for (let i = 0; i < SENTENCE_DIMENSION; i++) vector[i] += state[i];
    }
    let squares = 0;
    for (let i = 0; i < SENTENCE_DIMENSION; i++) squares += vector[i] * vector[i];
    // Mean pooling divides by the token count first; normalising makes that division moot.
    const inverse = squares > 0 ? 1 / Math.sqrt(squares) : 0;
    for (let i = 0; i < SENTENCE_DIMENSION; i++) vector[i] *= inverse;
  }
  return vectors;
}
