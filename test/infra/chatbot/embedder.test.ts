import t from 'tap';
import { join } from 'node:path';
import { CachedEmbedder } from '../../../infra/embedder/cached.js';
import { CohereEmbedder, cohereClient } from '../../../infra/embedder/cohere.js';
import { HybridEmbedder } from '../../../infra/embedder/hybrid.js';
import { LocalEmbedder } from '../../../infra/embedder/local.js';
import type { Embedder, EmbedPurpose } from '../../../infra/embedder/port.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);

const adapters: [string, () => Embedder][] = [
  ['local', () => new LocalEmbedder()],
  ['hybrid (sentence model and words)', () => new HybridEmbedder()],
];
if (process.env.COHERE_API_KEY)
  adapters.push(['cohere', () => new CohereEmbedder(cohereClient({ apiKey: process.env.COHERE_API_KEY as string }))]);

for (const [name, create] of adapters) {
  t.test(`${name} embedder contract`, async (t) => {
    const embedder = create();
    t.teardown(() => embedder.close());
    const docs = [
      'The violin was made in Cremona by Antonio Stradivari in 1715.',
      'A map of Lisbon engraved after the earthquake of 1755.',
      'The reading room opens at nine on weekdays.',
    ];
    const vectors = await embedder.embed(docs, 'document');
    t.equal(vectors.length, 3);
    for (const v of vectors) {
      t.equal(v.length, embedder.dimension);
      t.ok(Math.abs(Math.hypot(...v) - 1) < 1e-3, 'unit length');
    }
    const [query] = await embedder.embed(['Who made the violin?'], 'query');
    const scores = vectors.map((v) => cosine(v, query));
    t.equal(scores.indexOf(Math.max(...scores)), 0, 'the document about the topic ranks first');
    const [query2] = await embedder.embed(['earthquake map'], 'query');
    const scores2 = vectors.map((v) => cosine(v, query2));
    t.equal(scores2.indexOf(Math.max(...scores2)), 1);
    t.same(await embedder.embed([], 'document'), []);
  });
}

t.test('the local embedder is deterministic and needs no network', async (t) => {
  const a = new LocalEmbedder();
  const b = new LocalEmbedder();
  const [x] = await a.embed(['Maps of Portugal'], 'document');
  const [y] = await b.embed(['Maps of Portugal'], 'query');
  t.same(Array.from(x), Array.from(y));
  const [plural] = await a.embed(['map of portugal'], 'query');
  t.ok(cosine(x, plural) > 0.8, 'plural and case do not matter much');
  const [empty] = await a.embed(['the of and'], 'query');
  t.ok(
    empty.every((v) => v === 0),
    'stopwords only: a zero vector, no NaN',
  );
});

/** Counts what reaches the inner embedder. */
class CountingEmbedder implements Embedder {
  readonly model = 'counting';
  readonly dimension = 4;
  calls: string[] = [];
  async embed(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    this.calls.push(...texts.map((text) => `${purpose}:${text}`));
    return texts.map((text) => Float32Array.from([text.length, 1, 2, 3]));
  }
  async close(): Promise<void> {}
}

t.test('the cache keys by content hash and survives a restart', async (t) => {
  const file = join(t.testdir(), 'embeddings.sqlite');
  const inner = new CountingEmbedder();
  const cached = new CachedEmbedder(inner, file);
  const first = await cached.embed(['alpha', 'beta'], 'document');
  const second = await cached.embed(['beta', 'gamma', 'alpha'], 'document');
  t.same(inner.calls, ['document:alpha', 'document:beta', 'document:gamma'], 'each text is embedded once');
  t.same(Array.from(second[2]), Array.from(first[0]));
  await cached.embed(['alpha'], 'query');
  t.same(inner.calls.at(-1), 'query:alpha', 'a query is not served a document vector');
  await cached.close();

  const inner2 = new CountingEmbedder();
  const reopened = new CachedEmbedder(inner2, file);
  t.teardown(() => reopened.close());
  const again = await reopened.embed(['alpha', 'beta', 'gamma'], 'document');
  t.same(inner2.calls, [], 'nothing is re-embedded after a restart');
  t.same(Array.from(again[1]), [4, 1, 2, 3]);
  t.equal(reopened.size(), 4);
});
