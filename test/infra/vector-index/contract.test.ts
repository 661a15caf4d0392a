import t from 'tap';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchVectorIndex } from '../../../infra/vector-index/elasticsearch.js';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import { titleKey, type IndexedResource, type VectorIndex } from '../../../infra/vector-index/port.js';

const DIM = 8;

/** A unit vector along one axis, nudged towards another: distances are known in advance. */
function vec(axis: number, nudgeAxis = axis, nudge = 0): Float32Array {
  const v = new Float32Array(DIM);
  v[axis] = 1;
  v[nudgeAxis] += nudge;
  return v;
}

const resource = (
  over: Partial<IndexedResource> & Pick<IndexedResource, 'resourceType' | 'resourceId'>,
): IndexedResource => ({
  title: `${over.resourceType} ${over.resourceId}`,
  path: `/${over.resourceType}/${over.resourceId}`,
  siteIds: [1],
  itemSetIds: [],
  ...over,
});

const adapters: [string, () => VectorIndex][] = [
  ['sqlite-vec', () => new SqliteVectorIndex()],
  // The first pass over the int8 matrix on every search, even of a few rows (by default they are scanned).
  ['sqlite-vec, first pass always', () => new SqliteVectorIndex(':memory:', { maxCandidateShare: 1, minMargin: 1 })],
];
/** This run's indices (and the templates the adapter keeps for them) share a prefix, removed at the end. */
const testIndexPrefix = `chatbot-test-${randomUUID().slice(0, 8)}-`;
if (process.env.ELASTICSEARCH_URL) {
  const url = process.env.ELASTICSEARCH_URL;
  adapters.push(['elasticsearch', () => new ElasticsearchVectorIndex(url, `${testIndexPrefix}${randomUUID()}`)]);
  t.teardown(async () => {
    const client = new Client({ node: url });
    await client.indices.deleteIndexTemplate({ name: `${testIndexPrefix}*` });
    // The log stamps' indices, which clear keeps, by name: Elasticsearch 8 refuses to delete by wildcard.
    const left = Object.keys(await client.indices.get({ index: `${testIndexPrefix}*`, allow_no_indices: true }));
    if (left.length > 0) await client.indices.delete({ index: left, ignore_unavailable: true });
    await client.close();
  });
}

for (const [name, create] of adapters) {
  t.test(`${name} vector index contract`, async (t) => {
    const make = async (t: { teardown(fn: () => unknown): void }) => {
      const index = create();
      t.teardown(async () => {
        await index.clear();
        await index.close();
      });
      return index;
    };

    t.test('the log stamp: none at first, then the one written, kept by clear', async (t) => {
      const index = await make(t);
      t.equal(await index.logStamp(), null);
      const first = { log: randomUUID(), description: '/data/events.sqlite', stamped_at: '2026-01-02T03:04:05.000Z' };
      await index.stampLog(first);
      t.same(await index.logStamp(), first);
      await index.replace(resource({ resourceType: 'item', resourceId: 1 }), [{ text: 'axis 0', vector: vec(0) }]);
      await index.clear();
      t.same(await index.logStamp(), first, 'clear keeps it');
      const second = { ...first, log: randomUUID() };
      await index.stampLog(second);
      t.same(await index.logStamp(), second, 'a new stamp replaces it');
    });

    t.test('claimLog writes a stamp only on an index without one, and answers the one kept', async (t) => {
      const index = await make(t);
      const stamp = (log: string) => ({ log, description: 'a log', stamped_at: '2026-01-02T03:04:05.000Z' });
      const first = stamp(randomUUID());
      t.same(await index.claimLog(first), first, 'the first claim is kept');
      t.same(await index.claimLog(stamp(randomUUID())), first, 'a later one answers the first');
      t.same(await index.logStamp(), first);
      await index.clear();
      t.same(await index.claimLog(stamp(randomUUID())), first, 'clear keeps it');
    });

    t.test('search is exact cosine, nearest first, with distances', async (t) => {
      const index = await make(t);
      await index.replace(resource({ resourceType: 'item', resourceId: 1 }), [{ text: 'axis 0', vector: vec(0) }]);
      await index.replace(resource({ resourceType: 'item', resourceId: 2 }), [{ text: 'axis 1', vector: vec(1) }]);
      await index.replace(resource({ resourceType: 'item', resourceId: 3 }), [
        { text: 'mostly axis 0', vector: vec(0, 1, 0.5) },
      ]);
      const hits = await index.search(vec(0), 3);
      t.same(
        hits.map((h) => h.resourceId),
        [1, 3, 2],
      );
      t.ok(Math.abs(hits[0].distance) < 1e-5, 'identical direction: distance 0');
      t.ok(Math.abs(hits[1].distance - (1 - 1 / Math.sqrt(1.25))) < 1e-4, 'cosine distance of the nudged vector');
      t.ok(Math.abs(hits[2].distance - 1) < 1e-5, 'orthogonal: distance 1');
      t.equal(hits[0].text, 'axis 0');
      t.equal(hits[0].title, 'item 1');
      t.equal(hits[0].path, '/item/1');
      t.equal(hits[0].resourceType, 'item');
      t.same(
        (await index.search(vec(0), 1)).map((h) => h.resourceId),
        [1],
        'k limits the hits',
      );
      t.equal(await index.size(), 3);
    });

    t.test('vectors need not be normalised', async (t) => {
      const index = await make(t);
      await index.replace(resource({ resourceType: 'item', resourceId: 1 }), [
        { text: 'long', vector: vec(0).map((x) => x * 7) },
      ]);
      const [hit] = await index.search(
        vec(0).map((x) => x * 0.1),
        1,
      );
      t.ok(Math.abs(hit.distance) < 1e-5);
    });

    t.test("replace swaps a resource's chunks; no chunks or remove deletes them", async (t) => {
      const index = await make(t);
      const item = resource({ resourceType: 'item', resourceId: 1 });
      await index.replace(item, [
        { text: 'a', vector: vec(0) },
        { text: 'b', vector: vec(1) },
        { text: 'c', vector: vec(2) },
      ]);
      await index.replace(resource({ resourceType: 'media', resourceId: 1 }), [{ text: 'media', vector: vec(3) }]);
      t.equal(await index.size(), 4);
      await index.replace({ ...item, title: 'Renamed' }, [{ text: 'd', vector: vec(4) }]);
      t.equal(await index.size(), 2);
      const hits = await index.search(vec(4), 10);
      t.same(
        hits.map((h) => [h.resourceType, h.text, h.title]),
        [
          ['item', 'd', 'Renamed'],
          ['media', 'media', 'media 1'],
        ],
      );
      t.same(
        (await index.search(vec(0), 10)).filter((h) => h.distance < 0.5),
        [],
        'old chunks are gone',
      );
      await index.replace(item, []);
      t.equal(await index.size(), 1);
      await index.remove('media', 1);
      t.equal(await index.size(), 0);
      t.same(await index.search(vec(0), 5), []);
      await index.remove('media', 1);
      t.pass('removing twice is fine');
    });

    t.test('same id, different types are different resources', async (t) => {
      const index = await make(t);
      await index.replace(resource({ resourceType: 'item', resourceId: 5 }), [{ text: 'item', vector: vec(0) }]);
      await index.replace(resource({ resourceType: 'site_page', resourceId: 5 }), [{ text: 'page', vector: vec(0) }]);
      await index.remove('item', 5);
      t.same(
        (await index.search(vec(0), 5)).map((h) => h.text),
        ['page'],
      );
    });

    t.test('filters: site, item sets (which exclude posts and pages)', async (t) => {
      const index = await make(t);
      await index.replace(resource({ resourceType: 'item', resourceId: 1, siteIds: [1], itemSetIds: [10] }), [
        { text: 'i1', vector: vec(0) },
      ]);
      await index.replace(resource({ resourceType: 'media', resourceId: 2, siteIds: [2], itemSetIds: [10, 20] }), [
        { text: 'm2', vector: vec(0, 1, 0.1) },
      ]);
      await index.replace(resource({ resourceType: 'item', resourceId: 3, siteIds: [1, 2], itemSetIds: [30] }), [
        { text: 'i3', vector: vec(0, 1, 0.2) },
      ]);
      await index.replace(resource({ resourceType: 'blog_post', resourceId: 4, siteIds: [1] }), [
        { text: 'p4', vector: vec(0, 1, 0.3) },
      ]);
      await index.replace(resource({ resourceType: 'site_page', resourceId: 5, siteIds: [2] }), [
        { text: 's5', vector: vec(0, 1, 0.4) },
      ]);
      const texts = async (filter: object) => (await index.search(vec(0), 10, filter)).map((h) => h.text);
      t.same(await texts({}), ['i1', 'm2', 'i3', 'p4', 's5']);
      t.same(await texts({ siteId: 1 }), ['i1', 'i3', 'p4']);
      t.same(await texts({ siteId: 2 }), ['m2', 'i3', 's5']);
      t.same(await texts({ siteId: 9 }), []);
      t.same(await texts({ itemSetIds: [10] }), ['i1', 'm2']);
      t.same(await texts({ itemSetIds: [20, 30] }), ['m2', 'i3']);
      t.same(await texts({ itemSetIds: [] }), ['i1', 'm2', 'i3', 'p4', 's5'], 'an empty list is no restriction');
      t.same(await texts({ itemSetIds: [10], siteId: 2 }), ['m2']);
      t.same(
        (await index.search(vec(0), 1, { siteId: 2 })).map((h) => h.text),
        ['m2'],
        'k counts allowed chunks only',
      );
    });

    t.test("each chunk records its model, and a search sees only its own model's chunks", async (t) => {
      const index = await make(t);
      await index.replace(
        resource({ resourceType: 'item', resourceId: 1 }),
        [{ text: 'a1', vector: vec(0) }],
        'model-a',
      );
      await index.replace(
        resource({ resourceType: 'item', resourceId: 2 }),
        [{ text: 'a2', vector: vec(0, 1, 0.5) }],
        'model-a',
      );
      await index.replace(
        resource({ resourceType: 'item', resourceId: 3, siteIds: [2] }),
        [{ text: 'b3', vector: vec(0) }],
        'model-b',
      );
      const texts = async (filter: object) => (await index.search(vec(0), 10, filter)).map((h) => h.text);
      t.same(await texts({ model: 'model-a' }), ['a1', 'a2']);
      t.same(await texts({ model: 'model-b' }), ['b3']);
      t.same(await texts({ model: 'model-c' }), [], 'a model with no chunks finds nothing');
      t.same(await texts({}), [], 'nor does a search that names no model');
      t.same(await texts({ model: 'model-a', siteId: 2 }), [], 'the model and the filter both hold');
      t.same(await texts({ model: 'model-b', siteId: 2 }), ['b3']);
      // A reindex moves a resource to the other model.
      await index.replace(
        resource({ resourceType: 'item', resourceId: 1 }),
        [{ text: 'b1', vector: vec(0) }],
        'model-b',
      );
      t.same(await texts({ model: 'model-a' }), ['a2']);
      t.same((await texts({ model: 'model-b' })).sort(), ['b1', 'b3'], 'equally near: either order');
      t.equal(await index.size(), 3);
      t.same(await index.models(), { 'model-a': 1, 'model-b': 2 }, 'the chunks each model holds');
      await index.remove('item', 2);
      t.same(await index.models(), { 'model-b': 2 }, 'a model whose last chunk went is gone');
      await index.clear();
      t.same(await index.models(), {}, 'an empty index holds no model');
    });

    t.test(
      'titled: the first chunk of each resource whose title key is asked for, by type and id, within the filter',
      async (t) => {
        const index = await make(t);
        const titled = async (keys: string[], limit = 10, filter: object = {}) =>
          (await index.titled(keys, limit, filter)).map(
            (h) => `${h.resourceType}-${h.resourceId} ${h.chunkIndex} ${h.text}`,
          );
        await index.replace(
          resource({ resourceType: 'item', resourceId: 2, title: 'The Starry Night', siteIds: [1] }),
          [
            { text: 'first', vector: vec(1) },
            { text: 'second', vector: vec(0) },
          ],
        );
        await index.replace(
          resource({
            resourceType: 'media',
            resourceId: 1,
            title: 'the  STARRY-night!',
            siteIds: [2],
            itemSetIds: [7],
          }),
          [{ text: 'scan', vector: vec(2) }],
        );
        await index.replace(
          resource({ resourceType: 'item', resourceId: 1, title: 'The Starry Night (study)', siteIds: [1] }),
          [{ text: 'study', vector: vec(3) }],
        );
        await index.replace(
          resource({ resourceType: 'blog_post', resourceId: 3, title: 'Ébauche n° 5', siteIds: [1] }),
          [{ text: 'post', vector: vec(4) }],
          'model-b',
        );
        t.same(
          await titled([titleKey('The starry night')]),
          ['item-2 0 first', 'media-1 0 scan'],
          'one hit per resource, its first chunk; normalised titles match',
        );
        t.same(await titled(['starry night']), [], 'a key matches a whole title only');
        t.same(await titled(['the starry night', 'the starry night study']), [
          'item-1 0 study',
          'item-2 0 first',
          'media-1 0 scan',
        ]);
        t.same(
          await titled(['the starry night', 'the starry night study'], 2),
          ['item-1 0 study', 'item-2 0 first'],
          'limit',
        );
        t.same(await titled(['the starry night'], 10, { siteId: 2 }), ['media-1 0 scan'], 'site filter');
        t.same(await titled(['the starry night'], 10, { itemSetIds: [7] }), ['media-1 0 scan'], 'item set filter');
        t.same(await titled([titleKey('ébauche N°5')]), [], "another model's chunks are not found");
        t.same(
          await titled(['ébauche n 5'], 10, { model: 'model-b' }),
          ['blog_post-3 0 post'],
          'NFKC and lower case: n° is n and a separator',
        );
        t.same(await titled([]), []);
        await index.remove('item', 2);
        t.same(await titled(['the starry night']), ['media-1 0 scan'], 'a removed resource is not found by its title');
        await index.replace(resource({ resourceType: 'media', resourceId: 1, title: 'Another title', siteIds: [2] }), [
          { text: 'scan', vector: vec(2) },
        ]);
        t.same(await titled(['the starry night']), [], 'a replace brings the new title');
        t.same(await titled(['another title']), ['media-1 0 scan']);
      },
    );

    t.test('random vectors of 384 dimensions: the same ranking as a brute-force scan', async (t) => {
      const index = await make(t);
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
      const unit = (v: Float32Array) => {
        const norm = Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
        return v.map((x) => x / norm);
      };
      const stored: { id: number; vector: Float32Array }[] = [];
      for (let id = 1; id <= 60; id++) {
        const vectors = [0, 1, 2].map(() => unit(Float32Array.from({ length: 384 }, random)));
        vectors.forEach((vector) => stored.push({ id, vector }));
        await index.replace(
          resource({ resourceType: 'item', resourceId: id, siteIds: [id % 2] }),
          vectors.map((vector, i) => ({ text: `${id}-${i}`, vector })),
        );
      }
      for (let q = 0; q < 5; q++) {
        const query = unit(Float32Array.from({ length: 384 }, random));
        const expected = stored
          .filter((s) => q % 2 === 0 || s.id % 2 === 1)
          .map((s) => ({ id: s.id, distance: 1 - s.vector.reduce((sum, x, i) => sum + x * query[i], 0) }))
          .sort((a, b) => a.distance - b.distance)
          .slice(0, 20);
        const hits = await index.search(query, 20, q % 2 === 0 ? {} : { siteId: 1 });
        t.same(
          hits.map((h) => h.resourceId),
          expected.map((e) => e.id),
          `query ${q}`,
        );
        hits.forEach((hit, i) => t.ok(Math.abs(hit.distance - expected[i].distance) < 1e-4));
      }
    });

    t.test('many resources: removals keep the rest searchable', async (t) => {
      const index = await make(t);
      for (let id = 1; id <= 40; id++) {
        await index.replace(resource({ resourceType: 'item', resourceId: id }), [
          { text: `${id}a`, vector: vec(id % DIM, (id + 1) % DIM, id / 100) },
          { text: `${id}b`, vector: vec((id + 3) % DIM) },
        ]);
      }
      for (let id = 1; id <= 40; id += 3) await index.remove('item', id);
      t.equal(await index.size(), 2 * (40 - 14));
      const hits = await index.search(vec(2, 3, 0.02), 100);
      t.equal(hits.length, 52);
      t.notOk(
        hits.some((h) => h.resourceId % 3 === 1),
        'removed resources never come back',
      );
      t.equal(hits[0].text, '2a', 'the exact match is first');
      for (let i = 1; i < hits.length; i++) t.ok(hits[i - 1].distance <= hits[i].distance + 1e-9);
    });
  });
}

if (process.env.ELASTICSEARCH_URL) {
  const url = process.env.ELASTICSEARCH_URL;
  // Two handles on one index, as a server and the reindex CLI: neither may leave it without its mapping.
  const pair = (t: { teardown(fn: () => unknown): void }) => {
    const name = `${testIndexPrefix}${randomUUID()}`;
    const server = new ElasticsearchVectorIndex(url, name);
    const cli = new ElasticsearchVectorIndex(url, name);
    t.teardown(async () => {
      await cli.clear();
      await server.close();
      await cli.close();
    });
    return { server, cli };
  };

  t.test(
    'elasticsearch: servers starting at once read and write the stamp of an index one of them is creating',
    async (t) => {
      // Five new indices: each time one handle stamps (creating the stamp's index) while the other
      // reads it as fast as it can, before and while its shard starts.
      for (let round = 0; round < 5; round++) {
        const { server, cli } = pair(t);
        const stamp = { log: randomUUID(), description: '/data/events.sqlite', stamped_at: '2026-01-02T03:04:05.000Z' };
        let read: Awaited<ReturnType<typeof cli.logStamp>> = null;
        const reading = (async () => {
          for (let i = 0; i < 200 && read === null; i++) read = await cli.logStamp();
        })();
        await Promise.all([server.stampLog(stamp), reading, cli.stampLog(stamp)]);
        t.same(await cli.logStamp(), stamp, `round ${round}: both handles wrote and read without an error`);
      }
    },
  );

  t.test(
    'elasticsearch: two servers of two logs claiming a new index at once: one stamp is kept, both see it',
    async (t) => {
      for (let round = 0; round < 5; round++) {
        const { server, cli } = pair(t);
        const stamp = (log: string) => ({ log, description: 'a log', stamped_at: '2026-01-02T03:04:05.000Z' });
        const [a, b] = await Promise.all([server.claimLog(stamp(randomUUID())), cli.claimLog(stamp(randomUUID()))]);
        t.same(a, b, `round ${round}: both answer the same stamp`);
        t.same(await server.logStamp(), a, 'the one the index holds');
      }
    },
  );

  t.test("elasticsearch: a write after another handle's clear re-creates the index with its mapping", async (t) => {
    const { server, cli } = pair(t);
    await server.replace(resource({ resourceType: 'item', resourceId: 1 }), [{ text: 'before', vector: vec(0) }]);
    await cli.clear();
    await server.replace(resource({ resourceType: 'item', resourceId: 2 }), [{ text: 'after', vector: vec(0) }]);
    t.same(
      (await server.search(vec(0), 5)).map((h) => h.text),
      ['after'],
      'a kNN search works on the re-created index',
    );
    await cli.replace(resource({ resourceType: 'item', resourceId: 3 }), [{ text: 'cli', vector: vec(1) }]);
    t.same(
      (await cli.search(vec(1), 5)).map((h) => h.text),
      ['cli', 'after'],
    );
  });

  t.test('elasticsearch: two handles writing first to a new index at once both succeed', async (t) => {
    const { server, cli } = pair(t);
    await Promise.all([
      server.replace(resource({ resourceType: 'item', resourceId: 1 }), [{ text: 'server', vector: vec(0) }]),
      cli.replace(resource({ resourceType: 'item', resourceId: 2 }), [{ text: 'cli', vector: vec(1) }]),
    ]);
    t.same(
      (await server.search(vec(0), 5)).map((h) => h.text),
      ['server', 'cli'],
    );
  });
}

t.test('the embedded index takes another dimension once the last chunk of the old model is gone', async (t) => {
  const index = new SqliteVectorIndex();
  t.teardown(() => index.close());
  await index.replace(
    resource({ resourceType: 'item', resourceId: 1 }),
    [{ text: 'old', vector: vec(0) }],
    'old-model',
  );
  t.same(
    await index.search(new Float32Array(16).fill(1), 5, { model: 'new-model' }),
    [],
    'a query of a model with no chunks finds nothing, whatever its dimension',
  );
  await t.rejects(
    index.replace(
      resource({ resourceType: 'item', resourceId: 2 }),
      [{ text: 'new', vector: new Float32Array(16).fill(1) }],
      'new-model',
    ),
    /dimension 16/,
  );
  await index.replace(
    resource({ resourceType: 'item', resourceId: 2 }),
    [{ text: 'old 2', vector: vec(1) }],
    'old-model',
  );
  await t.rejects(
    index.replace(
      resource({ resourceType: 'item', resourceId: 2 }),
      [{ text: 'new', vector: new Float32Array(16).fill(1) }],
      'new-model',
    ),
    /dimension 16/,
  );
  t.same(
    (await index.search(vec(1), 1, { model: 'old-model' })).map((h) => h.text),
    ['old 2'],
    'a refused replace loses nothing',
  );
  await index.remove('item', 2);
  await index.replace(
    resource({ resourceType: 'item', resourceId: 1 }),
    [{ text: 'new', vector: new Float32Array(16).fill(1) }],
    'new-model',
  );
  t.same(
    (await index.search(new Float32Array(16).fill(1), 5, { model: 'new-model' })).map((h) => h.text),
    ['new'],
  );
});

t.test('the embedded index persists: reopened on the same file, it searches at once', async (t) => {
  const file = `${t.testdir()}/vector-index.sqlite`;
  const first = new SqliteVectorIndex(file);
  t.equal(first.persistent, true);
  await first.replace(
    resource({ resourceType: 'item', resourceId: 1, siteIds: [2], itemSetIds: [7] }),
    [{ text: 'kept', vector: vec(0) }],
    'model-a',
  );
  await first.replace(
    resource({ resourceType: 'blog_post', resourceId: 2 }),
    [{ text: 'other', vector: vec(1) }],
    'model-a',
  );
  await first.replace(resource({ resourceType: 'item', resourceId: 3 }), [{ text: 'gone', vector: vec(0) }], 'model-a');
  await first.remove('item', 3);
  await first.close();

  const reopened = new SqliteVectorIndex(file);
  t.teardown(() => reopened.close());
  t.equal(await reopened.size(), 2);
  t.same(
    (await reopened.search(vec(0), 5, { model: 'model-a' })).map((h) => [h.text, h.title, h.path]),
    [
      ['kept', 'item 1', '/item/1'],
      ['other', 'blog_post 2', '/blog_post/2'],
    ],
  );
  t.same(
    (await reopened.search(vec(0), 5, { model: 'model-a', siteId: 2, itemSetIds: [7] })).map((h) => h.text),
    ['kept'],
    'sites and item sets kept',
  );
  await t.rejects(
    reopened.replace(
      resource({ resourceType: 'item', resourceId: 4 }),
      [{ text: 'x', vector: new Float32Array(16).fill(1) }],
      'model-a',
    ),
    /dimension 16/,
    'the dimension kept',
  );
  t.equal(new SqliteVectorIndex().persistent, false, "':memory:' is not persistent");
});

t.test('the embedded index over 3,000 clustered chunks: the same top 10 as a brute-force scan', async (t) => {
  // Chunks of 64 dimensions in tight clusters, queries near stored chunks: where sign bits or
  // int8 codes could not tell the neighbours apart (a sign-bit first pass found 0.805 of them).
  const index = new SqliteVectorIndex();
  t.teardown(() => index.close());
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: 64 }, random));
  const stored: { id: number; site: number; vector: Float32Array }[] = [];
  for (let id = 1; id <= 1000; id++) {
    const vectors = [0, 1, 2].map(() => centres[id % 8].map((x) => x + 0.3 * random()));
    vectors.forEach((vector) => stored.push({ id, site: id % 3, vector }));
    await index.replace(
      resource({ resourceType: 'item', resourceId: id, siteIds: [id % 3] }),
      vectors.map((vector, i) => ({ text: `${id}-${i}`, vector })),
    );
  }
  const cosine = (a: Float32Array, b: Float32Array) => {
    let dot = 0,
      na = 0,
      nb = 0;
    for (let i = 0; i < a.length; i++) [dot, na, nb] = [dot + a[i] * b[i], na + a[i] * a[i], nb + b[i] * b[i]];
    return dot / Math.sqrt(na * nb);
  };
  let found = 0;
  let asked = 0;
  for (let q = 0; q < 20; q++) {
    const query = stored[(q * 149) % stored.length].vector.map((x) => x + 0.05 * random());
    const siteId = q % 2 === 0 ? undefined : 1;
    const expected = stored
      .filter((s) => siteId === undefined || s.site === siteId)
      .map((s) => ({ id: s.id, distance: 1 - cosine(s.vector, query) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, 10);
    const hits = await index.search(query, 10, siteId === undefined ? {} : { siteId });
    t.equal(hits.length, 10);
    for (let i = 1; i < hits.length; i++) t.ok(hits[i - 1].distance <= hits[i].distance, 'nearest first');
    found += hits.filter((hit) =>
      expected.some((e) => e.id === hit.resourceId && Math.abs(e.distance - hit.distance) < 1e-5),
    ).length;
    asked += 10;
  }
  t.equal(found, asked, 'every hit is one of the exact top 10, at its exact distance');
});

t.test(
  "two handles on one file (a server and the reindex CLI): a clear and another model's dimension are seen by both",
  async (t) => {
    const file = `${t.testdir()}/vector-index.sqlite`;
    const server = new SqliteVectorIndex(file);
    const cli = new SqliteVectorIndex(file);
    t.teardown(async () => {
      await server.close();
      await cli.close();
    });
    await server.replace(
      resource({ resourceType: 'item', resourceId: 1 }),
      [{ text: 'old', vector: vec(0) }],
      'old-model',
    );
    await cli.clear();
    const wide = new Float32Array(16).fill(1);
    await cli.replace(resource({ resourceType: 'item', resourceId: 1 }), [{ text: 'new', vector: wide }], 'new-model');
    t.same(
      (await server.search(wide, 5, { model: 'new-model' })).map((h) => h.text),
      ['new'],
    );
    await t.rejects(
      server.replace(resource({ resourceType: 'item', resourceId: 2 }), [{ text: 'x', vector: vec(0) }], 'old-model'),
      /dimension 8/,
    );
    t.equal(await server.size(), 1);
  },
);
