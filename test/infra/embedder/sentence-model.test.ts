import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { HYBRID_DIMENSION, HybridEmbedder, SEMANTIC_WEIGHT, WORD_WEIGHT } from '../../../infra/embedder/hybrid.js';
import { LocalEmbedder } from '../../../infra/embedder/local.js';
import { SentenceModel } from '../../../infra/embedder/sentence-model/client.js';
import { piecesOf, PIECE_WORDS } from '../../../infra/embedder/sentence-model/pieces.js';
import { SENTENCE_DIMENSION } from '../../../infra/embedder/sentence-model/protocol.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

t.test('texts are cut into bounded pieces; nothing meaningful, no piece', async (t) => {
  t.same(piecesOf(''), []);
  t.same(piecesOf('   \n\t '), []);
  t.same(piecesOf('... -- !!'), [], 'punctuation alone');
  t.same(piecesOf('  The   violin\nof Cremona. '), ['The violin of Cremona.']);
  const long = Array.from({ length: 2 * PIECE_WORDS + 5 }, (_, i) => `w${i}`).join(' ');
  const pieces = piecesOf(long);
  t.equal(pieces.length, 3);
  t.ok(pieces.every((p) => p.split(' ').length <= PIECE_WORDS));
  t.equal(pieces.join(' '), long, 'every word kept, in order');
  t.ok(
    piecesOf('x'.repeat(10_000)).every((p) => p.length <= 40),
    'a word without spaces is clipped',
  );
});

t.test('the sentence model on its thread', async (t) => {
  // One thread for the file: loading the model costs about a second.
  const model = new SentenceModel();
  t.teardown(() => model.close());

  t.test('one unit vector per text, empty texts included (the model throws on them or drops their row)', async (t) => {
    const vectors = await model.embed(['The violin of Cremona', '', 'A map of Lisbon', '   '], 'document');
    t.equal(vectors.length, 4);
    t.ok(Math.abs(norm(vectors[0]) - 1) < 1e-4 && Math.abs(norm(vectors[2]) - 1) < 1e-4, 'unit length');
    t.equal(norm(vectors[1]), 0, 'an empty text has no meaning: a zero vector');
    t.equal(norm(vectors[3]), 0);
    t.equal(vectors[0].length, SENTENCE_DIMENSION);
    t.same(await model.embed([], 'query'), []);
  });

  t.test('the same text gives nearly the same vector, alone or in any batch', async (t) => {
    const [alone] = await model.embed(['Jazz trumpet recordings'], 'query');
    const [, inBatch] = await model.embed(['Opening hours', 'Jazz trumpet recordings'], 'document');
    const [, , other] = await model.embed(
      ['A map of Lisbon before the earthquake of 1755, engraved', 'x', 'Jazz trumpet recordings'],
      'document',
    );
    // The int8 model quantises a batch's activations together, so a text's neighbours in a batch
    // move its vector a little (measured: cosine 0.993 to 0.995); the cache keeps the first one.
    for (const [name, vector] of [
      ['in a batch', inBatch],
      ['in another batch', other],
    ] as const)
      t.ok(dot(alone, vector) > 0.99, `${name}: cosine ${dot(alone, vector).toFixed(4)}`);
  });

  t.test('meaning: a question finds its answer in other words', async (t) => {
    const [question, jazz, hours] = await model.embed(
      [
        'Do you have any music from New Orleans?',
        'Louis Armstrong playing jazz trumpet, recorded in 1928',
        'The museum opens at ten every day except Monday',
      ],
      'document',
    );
    t.ok(
      dot(question, jazz) > dot(question, hours),
      `jazz ${dot(question, jazz).toFixed(3)} > opening hours ${dot(question, hours).toFixed(3)}`,
    );
  });

  t.test('a long text is embedded piece by piece, and a query goes before the documents waiting', async (t) => {
    const long = Array.from(
      { length: 12 },
      () => 'The map shows the harbour, the castle and the cathedral of the city before the earthquake.',
    ).join(' ');
    const order: string[] = [];
    const documents = model
      .embed(
        Array.from({ length: 6 }, () => long),
        'document',
      )
      .then(() => order.push('documents'));
    await new Promise((r) => setTimeout(r, 20));
    const query = model.embed(['Where is the castle?'], 'query').then(() => order.push('query'));
    await Promise.all([documents, query]);
    t.same(order, ['query', 'documents'], 'the query did not wait for the documents');
  });

  t.test('queries take turns: a short one does not wait for all of a long one', async (t) => {
    const sentence = 'The map shows the harbour, the castle and the cathedral of the city before the earthquake.';
    const order: string[] = [];
    const chat = model
      .embed(
        Array.from({ length: 30 }, (_, i) => `${sentence} ${i}`),
        'query',
      )
      .then(() => order.push('many sentences'));
    await new Promise((r) => setTimeout(r, 20));
    const search = model.embed(['Where is the castle?'], 'query').then(() => order.push('one search'));
    await Promise.all([chat, search]);
    t.same(order, ['one search', 'many sentences']);
  });
});

t.test('the hybrid embedder', async (t) => {
  const embedder = new HybridEmbedder();
  t.teardown(() => embedder.close());
  t.equal(embedder.dimension, HYBRID_DIMENSION, "the vectors keep the first model's length");
  t.equal(
    embedder.model,
    `all-minilm-l6-v2-q-384-p${PIECE_WORDS}+local-hashed-ngrams-v1-${HYBRID_DIMENSION - 384}:${SEMANTIC_WEIGHT}/${WORD_WEIGHT}`,
    'the model name says both parts, the piece size and the weights',
  );
  const [full] = await embedder.embed(['Stradivari violin'], 'document');
  const [provisional] = embedder.provisional(['Stradivari violin']);
  t.ok(Math.abs(norm(full) - 1) < 1e-4 && Math.abs(norm(provisional) - 1) < 1e-4, 'both unit length');
  t.ok(
    provisional.subarray(0, SENTENCE_DIMENSION).every((x) => x === 0),
    'a stand-in has no meaning part',
  );
  t.ok(
    Math.abs(dot(full, provisional) - WORD_WEIGHT / Math.hypot(SEMANTIC_WEIGHT, WORD_WEIGHT)) < 1e-4,
    'but shares the words part, at its weight',
  );
  const [stopwords] = await embedder.embed(['the of and'], 'query');
  t.ok(
    stopwords.every((x) => Number.isFinite(x)),
    'no NaN for a text without content words',
  );
});

t.test('closing the model while its threads run batches ends the process normally (no abort)', async (t) => {
  const script = fileURLToPath(new URL('../../fixtures/chatbot/close-mid-batch.ts', import.meta.url));
  for (let round = 1; round <= 2; round++) {
    const { code, signal, stdout } = await new Promise<{ code: number | null; signal: string | null; stdout: string }>(
      (resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.on('exit', (code, signal) => resolve({ code, signal, stdout }));
      },
    );
    t.same({ code, signal, stdout }, { code: 0, signal: null, stdout: 'closed\n' }, `round ${round}`);
  }
});

t.test(
  "the hybrid embedder's query vectors for an earlier hybrid's chunks: its words, where it put them",
  async (t) => {
    const embedder = new HybridEmbedder();
    t.teardown(() => embedder.close());
    const earlier = 'use-lite-512-p40+local-hashed-ngrams-v1-384:1/0.5';
    const [vector] = embedder.legacyQuery(earlier, ['Stradivari violin']) ?? [];
    t.equal(vector?.length, HYBRID_DIMENSION, "of the index's dimension");
    t.ok(
      vector?.subarray(0, 512).every((x) => x === 0),
      "nothing where that model's meaning was",
    );
    t.same(
      Array.from(vector?.subarray(512) ?? []),
      Array.from(new LocalEmbedder(384).vector('Stradivari violin')),
      'its word features after',
    );
    t.equal(embedder.legacyQuery(embedder.model, ['x']), null, 'not for its own model');
    t.equal(
      embedder.legacyQuery('use-lite-256-p40+local-hashed-ngrams-v1-384:1/0.5', ['x']),
      null,
      'nor another dimension',
    );
    t.equal(embedder.legacyQuery('embed-english-v3.0', ['x']), null, 'nor another kind of model');
    t.equal(embedder.legacyQuery('local-hashed-ngrams-v1-384', ['x']), null, 'nor the words alone');
  },
);
