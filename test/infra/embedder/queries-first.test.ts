import t, { type Test } from 'tap';
import { BroadcastChannel } from 'node:worker_threads';
import { SentenceModel, type SentenceModelOptions } from '../../../infra/embedder/sentence-model/client.js';
import { SENTENCE_DIMENSION } from '../../../infra/embedder/sentence-model/protocol.js';
import { LOAD_MS, RELEASE_CHANNEL } from '../../fixtures/chatbot/held-model-release.js';

const threadScript = new URL('../../fixtures/chatbot/held-model-thread.ts', import.meta.url);

/** A model on the held thread, and the channel that says when a batch is held and releases it. */
function heldModel(t: Test, options: SentenceModelOptions = {}) {
  const model = new SentenceModel({
    threadScript,
    queryTimeoutMs: 5_000,
    startTimeoutMs: 30_000,
    batchTimeoutMs: 120_000,
    ...options,
  });
  const channel = new BroadcastChannel(RELEASE_CHANNEL);
  let held = 0;
  let released = false;
  let onHeld: (() => void) | null = null;
  channel.onmessage = (message) => {
    if (message.data !== 'held') return;
    held++;
    // A thread started after the release (a second document thread) did not hear it.
    if (released) channel.postMessage('release');
    onHeld?.();
  };
  t.teardown(async () => {
    channel.close();
    await model.close();
  });
  return {
    model,
    /** Resolves once `count` batches are held on their threads. */
    held: (count = 1) =>
      new Promise<void>((resolve) => {
        const check = () => (held >= count ? resolve() : (onHeld = check));
        check();
      }),
    release: () => {
      released = true;
      channel.postMessage('release');
    },
  };
}

t.test('a query is answered while a long document batch holds the model', async (t) => {
  const { model, held, release } = heldModel(t);
  let documentsDone = false;
  const documents = model
    .embed(
      Array.from({ length: 40 }, (_, i) => `hold this document ${i} for as long as the test wants`),
      'document',
    )
    .then((vectors) => {
      documentsDone = true;
      return vectors;
    });
  await held();
  const [query] = await model.embed(['where is the castle?'], 'query');
  t.equal(query.length, SENTENCE_DIMENSION, 'the query got its vector');
  t.notOk(documentsDone, 'while the document batch was still held: the query did not wait behind it');
  release();
  t.equal((await documents).length, 40, 'the documents are answered once released');
});

t.test('queries keep going while every document thread is held', async (t) => {
  const { model, held, release } = heldModel(t, { documentThreads: 2, documentBatchPieces: 1, spareCore: () => true });
  const documents = model.embed(['hold one', 'hold two', 'hold three'], 'document');
  await held(2);
  t.equal(
    model.threadsRunning,
    2,
    'two document threads (a core to spare, no query yet); the query thread starts at the first query',
  );
  for (let i = 0; i < 5; i++) {
    const [vector] = await model.embed([`question number ${i}`], 'query');
    t.equal(vector.length, SENTENCE_DIMENSION, `query ${i} answered`);
  }
  t.equal(model.threadsRunning, 3, 'and the query thread');
  release();
  t.equal((await documents).length, 3);
});

t.test('a document thread idle for documentIdleMs is ended; the query thread stays', async (t) => {
  const { model } = heldModel(t, { documentThreads: 1, documentIdleMs: 300 });
  t.equal((await model.embed(['a document to read'], 'document')).length, 1);
  await model.embed(['a question'], 'query');
  t.equal(model.threadsRunning, 2, 'a thread for documents and one for queries');
  for (let i = 0; i < 50 && model.threadsRunning > 1; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(model.threadsRunning, 1, 'the idle document thread was ended');
  t.equal((await model.embed(['another question'], 'query')).length, 1, 'queries go on');
  t.equal(
    (await model.embed(['another document'], 'document')).length,
    1,
    'the next document starts a document thread again',
  );
});

t.test('no document batch starts while a query is being embedded', async (t) => {
  const { model, held, release } = heldModel(t, { documentThreads: 1 });
  await model.embed(['load the threads'], 'document');
  await model.embed(['load the threads'], 'query');
  let documentsDone = false;
  const query = model.embed(['hold this question'], 'query');
  await held();
  const documents = model.embed(['a document that would take the core'], 'document').then(() => (documentsDone = true));
  await new Promise((r) => setTimeout(r, 500));
  t.notOk(documentsDone, 'the documents wait while the query holds the model');
  release();
  await query;
  await documents;
  t.ok(documentsDone, 'and go once it is answered');
});

t.test('a second document thread reads only when the machine has a core to spare', async (t) => {
  const { model } = heldModel(t, { documentThreads: 2, spareCore: () => false });
  await model.embed(
    Array.from({ length: 20 }, (_, i) => `document number ${i}`),
    'document',
  );
  await new Promise((r) => setTimeout(r, 200));
  await model.embed(
    Array.from({ length: 20 }, (_, i) => `document number ${i + 20}`),
    'document',
  );
  t.equal(model.threadsRunning, 1, 'one document thread (and no query thread: nothing was asked)');
});

t.test(
  'one load at a time: a query asked while a document thread loads goes to it, then the query thread loads',
  async (t) => {
    const model = new SentenceModel({
      threadScript: new URL('../../fixtures/chatbot/slow-loading-model-thread.ts', import.meta.url),
      documentThreads: 1,
    });
    t.teardown(() => model.close());
    const documents = model.embed(['a document'], 'document');
    await new Promise((r) => setTimeout(r, 200));
    const query = model.embed(['a question asked while the document thread loads'], 'query');
    await new Promise((r) => setTimeout(r, LOAD_MS / 2));
    t.equal(model.threadsRunning, 1, 'the query thread waits to start while the document thread loads');
    const [vector] = await query;
    t.equal(vector.length, SENTENCE_DIMENSION, 'the query is answered by the document thread once it has loaded');
    await documents;
    for (let i = 0; i < 50 && model.threadsRunning < 2; i++) await new Promise((r) => setTimeout(r, 100));
    t.equal(model.threadsRunning, 2, 'and the query thread starts then');
  },
);
