import t from 'tap';
import { LocalEmbedder } from '../../../infra/embedder/local.js';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import type { IndexedResource } from '../../../infra/vector-index/port.js';
import { retrieve } from '../../../queries/chatbot/retrieve.js';
import { cosineDistance } from '../../../infra/embedder/cosine.js';
import { titlePhrases } from '../../../queries/chatbot/title-match.js';
import { chunkText } from '../../../workers/chatbot/chunker.js';

/** Words enough for two chunks, none of them in the titles below. */
const cargo = Array.from(
  { length: 150 },
  (_, i) => ['cargo', 'barrels', 'grain', 'dockers', 'cranes', 'ledger', 'tariffs', 'ropes'][i % 8],
).join(' ');

/**
 * A harbour picture whose description speaks of its cargo, beside pictures whose descriptions
 * repeat the words of its title: by their chunks' vectors the others lie nearer to the title.
 */
const documents: { resource: IndexedResource; text: string }[] = [
  {
    resource: {
      resourceType: 'item',
      resourceId: 7,
      title: 'The Harbour at Honfleur',
      path: '/item/7',
      siteIds: [1],
      itemSetIds: [],
    },
    text: cargo,
  },
  ...[1, 2, 3, 4, 5, 6].map((id) => ({
    resource: {
      resourceType: 'media' as const,
      resourceId: id,
      title: `Harbour view ${id}`,
      path: `/media/${id}`,
      siteIds: [1],
      itemSetIds: [],
    },
    text: 'The harbour at Honfleur, the harbour seen from Honfleur, the Honfleur harbour at dusk.',
  })),
  {
    resource: {
      resourceType: 'item',
      resourceId: 8,
      title: 'The Harbour at Honfleur',
      path: '/item/8',
      siteIds: [2],
      itemSetIds: [],
    },
    text: cargo,
  },
];

async function indexed(embedder: LocalEmbedder): Promise<SqliteVectorIndex> {
  const index = new SqliteVectorIndex();
  for (const { resource, text } of documents) {
    const chunks = chunkText(text);
    const vectors = await embedder.embed(
      chunks.map((chunk) => `${resource.title}\n${chunk}`),
      'document',
    );
    await index.replace(
      resource,
      chunks.map((chunk, i) => ({ text: chunk, vector: vectors[i] })),
      embedder.model,
    );
  }
  return index;
}

t.test("titlePhrases: runs of at least half the query's words, normalised, longest first", async (t) => {
  t.same(titlePhrases('The Starry-Night!'), ['the starry night', 'the starry', 'starry night']);
  t.same(titlePhrases('a b c d'), ['a b c d', 'a b c', 'b c d', 'a b', 'b c', 'c d']);
  t.same(titlePhrases('   ...  '), []);
  t.equal(
    titlePhrases('word '.repeat(60)).length,
    0,
    'a query of more than twice the longest title looked for names no title',
  );
});

t.test('cosineDistance: 0 for one direction, 1 for orthogonal or zero vectors', async (t) => {
  t.equal(cosineDistance(Float32Array.of(1, 0), Float32Array.of(3, 0)), 0);
  t.equal(cosineDistance(Float32Array.of(1, 0), Float32Array.of(0, 2)), 1);
  t.equal(cosineDistance(Float32Array.of(0, 0), Float32Array.of(0, 2)), 1);
});

t.test("a query equal to a resource's title, or its title and a few words, finds that resource first", async (t) => {
  const embedder = new LocalEmbedder();
  const vectorIndex = await indexed(embedder);
  t.teardown(() => vectorIndex.close());
  const deps = { embedder, vectorIndex };

  // The chunks alone rank the item below the pictures that repeat its title's words.
  const [query] = await embedder.embed(['The Harbour at Honfleur'], 'query');
  const byChunks = await vectorIndex.search(query, 100, { model: embedder.model, siteId: 1 });
  t.not(`${byChunks[0].resourceType}-${byChunks[0].resourceId}`, 'item-7', 'by its chunks, the item is not first');

  for (const text of [
    'The Harbour at Honfleur',
    'the harbour at honfleur',
    'THE HARBOUR AT HONFLEUR, oil painting',
    'painting: The Harbour at Honfleur',
  ]) {
    const found = await retrieve(deps, { text: text, filter: { siteId: 1 } });
    t.same([found[0].best.resourceType, found[0].best.resourceId], ['item', 7], text);
    t.equal(found[0].best.chunkIndex, 0, 'the hit carries the first chunk, the one the title opens');
    t.equal(found[0].best.text.slice(0, 12), 'cargo barrel');
    const [q, title] = await embedder.embed([text, 'The Harbour at Honfleur'], 'query');
    t.equal(found[0].best.distance, cosineDistance(q, title), "its distance is the query's to its title");
    for (let i = 1; i < found.length; i++) t.ok(found[i - 1].best.distance <= found[i].best.distance, 'nearest first');
    const urls = found.map((r) => r.url);
    t.equal(new Set(urls).size, urls.length, 'one entry per resource URL');
    t.notOk(urls.includes('/item/8'), "the same title on another site stays out of a site's search");
  }
  const exact = await retrieve(deps, { text: 'The Harbour at Honfleur', filter: { siteId: 1 } });
  t.ok(exact[0].best.distance < 1e-6, `the exact title is at distance 0 (${exact[0].best.distance})`);

  const both = await retrieve(deps, { text: 'The Harbour at Honfleur', filter: {} });
  t.same(
    both.slice(0, 2).map((r) => r.url),
    ['/item/7', '/item/8'],
    'both titled resources first without a site filter',
  );

  // A question that merely contains the title's words does not take the title's place.
  const question = await retrieve(deps, {
    text: 'Which pictures of the harbour at Honfleur at dusk show the view from the water?',
    filter: { siteId: 1 },
  });
  t.not(question[0].url, '/item/7', 'a title under half of the query is not looked for');
});
