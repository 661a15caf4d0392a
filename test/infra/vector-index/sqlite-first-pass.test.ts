import t from 'tap';
import { SqliteVectorIndex } from '../../../infra/vector-index/sqlite.js';
import type { IndexedResource, ResourceType, SearchFilter, VectorHit } from '../../../infra/vector-index/port.js';

const MODEL = 'model-a';

function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

const resource = (
  resourceType: ResourceType,
  resourceId: number,
  siteIds = [1],
  itemSetIds: number[] = [],
): IndexedResource => ({
  resourceType,
  resourceId,
  title: `${resourceType} ${resourceId}`,
  path: `/${resourceType}/${resourceId}`,
  siteIds,
  itemSetIds,
});

/** A vector along one axis, tilted towards another. */
function axis(dimension: number, along: number, towards = along, tilt = 0): Float32Array {
  const v = new Float32Array(dimension);
  v[along] = 1;
  v[towards] += tilt;
  return v;
}

/** The hits where the two differ, for a message that says which. */
function differences(hits: VectorHit[], expected: VectorHit[]): string[] {
  const line = (h: VectorHit | undefined) =>
    h ? `${h.resourceType} ${h.resourceId} #${h.chunkIndex} at ${h.distance}` : 'none';
  const out: string[] = [];
  for (let i = 0; i < Math.max(hits.length, expected.length); i++) {
    if (line(hits[i]) !== line(expected[i]) || hits[i]?.text !== expected[i]?.text)
      out.push(`${i}: ${line(hits[i])} instead of ${line(expected[i])}`);
  }
  return out;
}

t.test(
  "differential: the first pass gives the SQL scan's hits and distances, bit for bit, on random data with ties and filters",
  async (t) => {
    const file = `${t.testdir()}/vector-index.sqlite`;
    const random = seeded(20);
    const dimension = 96;
    // Writes go through `writer`, whose matrix is kept in step by its own writes; `reloading` sees
    // them as another connection's and reads its matrix again; `scan` never makes a first pass.
    const writer = new SqliteVectorIndex(file, { minMargin: 3 });
    const reloading = new SqliteVectorIndex(file, { reloadPauseMs: 0 });
    const scan = new SqliteVectorIndex(file, { maxCandidateShare: 0 });
    t.teardown(async () => {
      for (const index of [writer, reloading, scan]) await index.close();
    });
    const gaussian = () => (random() + random() + random() - 1.5) * 2;
    const stored: Float32Array[] = [];
    const vectorOfKind = (): Float32Array => {
      const kind = random();
      const earlier = stored[Math.floor(random() * stored.length)];
      if (kind < 0.4 || !earlier) return Float32Array.from({ length: dimension }, gaussian);
      if (kind < 0.6) {
        // Sparse, like the words embedder's.
        const v = new Float32Array(dimension);
        for (let i = 0; i < 6; i++) v[Math.floor(random() * dimension)] = random();
        return v;
      }
      if (kind < 0.7) return Float32Array.from(earlier); // an exact tie, broken by id
      if (kind < 0.8) return earlier.map((x) => x * 3); // the same direction, longer
      if (kind < 0.95) return earlier.map((x) => x + 1e-6 * gaussian()); // a near tie
      return new Float32Array(dimension); // no direction at all: distance 1
    };
    const types: ResourceType[] = ['item', 'media', 'blog_post', 'site_page'];
    const write = async (id: number) => {
      const type = types[id % 4];
      const sites = [1, 2, 3].filter(() => random() < 0.5);
      const sets = type === 'item' || type === 'media' ? [10, 20, 30].filter(() => random() < 0.3) : [];
      const chunks = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => {
        const vector = vectorOfKind();
        stored.push(vector);
        return { text: `${id}-${i}`, vector };
      });
      await writer.replace(resource(type, id, sites, sets), chunks, MODEL);
    };
    for (let id = 1; id <= 1000; id++) await write(id);

    const filters: SearchFilter[] = [
      {},
      { siteId: 1 },
      { siteId: 3 },
      { itemSetIds: [10] },
      { itemSetIds: [20, 30], siteId: 2 },
      { siteId: 9 },
    ];
    const failures: string[] = [];
    const compare = async (round: number) => {
      for (let q = 0; q < 40; q++) {
        const near = stored[Math.floor(random() * stored.length)];
        const query =
          q % 3 === 0
            ? Float32Array.from(near)
            : q % 3 === 1
              ? near.map((x) => x + 0.05 * gaussian())
              : Float32Array.from({ length: dimension }, gaussian);
        const k = [1, 5, 10, 37, 100][q % 5];
        const filter = { model: MODEL, ...filters[Math.floor(random() * filters.length)] };
        const expected = await scan.search(query, k, filter);
        for (const [name, index] of [
          ['writer', writer],
          ['reloading', reloading],
        ] as const) {
          const diff = differences(await index.search(query, k, filter), expected);
          if (diff.length > 0)
            failures.push(
              `round ${round}, query ${q}, ${name}, k ${k}, ${JSON.stringify(filter)}: ${diff.slice(0, 3).join('; ')}`,
            );
        }
      }
    };
    await compare(0);
    // Writes after the matrices are read: replaced, removed and new resources.
    for (let id = 1; id <= 1000; id += 7) await write(id);
    for (let id = 3; id <= 1000; id += 11) await writer.remove(types[id % 4], id);
    for (let id = 1001; id <= 1100; id++) await write(id);
    await compare(1);
    t.same(failures, [], 'no search differs from the scan');
    t.ok(writer.searchCounts.firstPass > 40, `the writer made first passes (${JSON.stringify(writer.searchCounts)})`);
    t.ok(
      reloading.searchCounts.firstPass > 40,
      `the reloading index made first passes (${JSON.stringify(reloading.searchCounts)})`,
    );
    t.equal(scan.searchCounts.firstPass, 0);
  },
);

/** 600 chunks around axis 0 on site 1, each its own item. */
async function fill(index: SqliteVectorIndex, dimension = 8): Promise<void> {
  const random = seeded(5);
  for (let id = 1; id <= 600; id++) {
    await index.replace(
      resource('item', id),
      [{ text: `near ${id}`, vector: axis(dimension, 0, 1 + (id % (dimension - 1)), 0.2 + random()) }],
      MODEL,
    );
  }
}

t.test('a filter that lets few of the candidates through falls back to the scan', async (t) => {
  // A margin of 20: a filtered search of k = 10 then reads 60 candidates, few enough of 600 rows.
  const index = new SqliteVectorIndex(':memory:', { minMargin: 20 });
  t.teardown(() => index.close());
  await fill(index);
  for (let id = 1; id <= 3; id++)
    await index.replace(resource('blog_post', id, [7]), [{ text: `far ${id}`, vector: axis(8, 5, 6, id / 10) }], MODEL);
  const hits = await index.search(axis(8, 0), 10, { model: MODEL, siteId: 7 });
  t.same(
    hits.map((h) => h.text),
    ['far 1', 'far 2', 'far 3'],
    'every allowed chunk, however far',
  );
  t.same(index.searchCounts, { firstPass: 0, scan: 1 }, 'no candidate passed: the scan answered');
  const site1 = await index.search(axis(8, 0), 10, { model: MODEL, siteId: 1 });
  t.equal(site1.length, 10);
  t.same(index.searchCounts, { firstPass: 1, scan: 1 }, 'a filter most candidates pass: the first pass answered');
});

t.test("a search after another connection's write reads the matrix again", async (t) => {
  const file = `${t.testdir()}/vector-index.sqlite`;
  const server = new SqliteVectorIndex(file, { reloadPauseMs: 0 });
  const cli = new SqliteVectorIndex(file);
  const scan = new SqliteVectorIndex(file, { maxCandidateShare: 0 });
  t.teardown(async () => {
    for (const index of [server, cli, scan]) await index.close();
  });
  await fill(cli);
  const query = axis(8, 7);
  await cli.replace(resource('item', 1), [{ text: 'nearest', vector: axis(8, 7, 0, 0.1) }], MODEL);
  t.same(
    (await server.search(query, 1, { model: MODEL })).map((h) => h.text),
    ['nearest'],
    'the matrix is read at the first search',
  );
  // Item 2 was far from the query; now it is on it, and item 1 is gone.
  await cli.replace(resource('item', 2), [{ text: 'on the query', vector: query }], MODEL);
  await cli.remove('item', 1);
  const hits = await server.search(query, 5, { model: MODEL });
  t.equal(hits[0].text, 'on the query', 'the chunk written by the other connection is found');
  t.notOk(
    hits.some((h) => h.text === 'nearest'),
    'the chunk it removed is not',
  );
  t.same(hits, await scan.search(query, 5, { model: MODEL }), "the scan's hits");
  t.same(server.searchCounts, { firstPass: 2, scan: 0 }, 'both by the first pass, the second over a matrix read again');
});

t.test(
  'while another connection keeps writing, the index scans, and reads the matrix once the writes pause',
  async (t) => {
    const file = `${t.testdir()}/vector-index.sqlite`;
    const server = new SqliteVectorIndex(file, { reloadPauseMs: 50 });
    const cli = new SqliteVectorIndex(file);
    t.teardown(async () => {
      await server.close();
      await cli.close();
    });
    await fill(cli);
    const query = axis(8, 7);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
    const nearest = async () => (await server.search(query, 1, { model: MODEL }))[0].text;
    await nearest();
    await nearest();
    t.same(server.searchCounts, { firstPass: 2, scan: 0 }, 'read once, then held');
    await cli.replace(resource('item', 2), [{ text: 'on the query', vector: query }], MODEL);
    await pause();
    t.equal(await nearest(), 'on the query');
    t.same(server.searchCounts, { firstPass: 3, scan: 0 }, 'one write after a quiet spell: read again');
    await cli.replace(resource('item', 3), [{ text: 'on the query too', vector: query }], MODEL);
    await pause();
    t.equal(await nearest(), 'on the query');
    await cli.remove('item', 2);
    await pause();
    t.equal(await nearest(), 'on the query too');
    t.same(server.searchCounts, { firstPass: 3, scan: 2 }, 'writes seen at every check, however far apart: scanned');
    await pause();
    t.equal(await nearest(), 'on the query too');
    t.same(server.searchCounts, { firstPass: 4, scan: 2 }, 'no write since the last check, the pause over: read again');
  },
);

t.test('clear and a new dimension, by this connection or another, are followed by the matrix', async (t) => {
  const file = `${t.testdir()}/vector-index.sqlite`;
  const server = new SqliteVectorIndex(file, { reloadPauseMs: 0, maxCandidateShare: 1 });
  const cli = new SqliteVectorIndex(file);
  t.teardown(async () => {
    await server.close();
    await cli.close();
  });
  await server.replace(resource('item', 1), [{ text: 'eight', vector: axis(8, 0) }], MODEL);
  t.equal((await server.search(axis(8, 0), 1, { model: MODEL })).length, 1);
  // Without a clear: the last chunk removed, another dimension taken.
  await server.remove('item', 1);
  await server.replace(
    resource('item', 2),
    [
      { text: 'sixteen', vector: axis(16, 3) },
      { text: 'sixteen b', vector: axis(16, 4) },
    ],
    MODEL,
  );
  t.same(
    (await server.search(axis(16, 4), 2, { model: MODEL })).map((h) => h.text),
    ['sixteen b', 'sixteen'],
  );
  await server.clear();
  t.same(await server.search(axis(16, 4), 2, { model: MODEL }), []);
  await server.replace(resource('item', 3), [{ text: 'four', vector: axis(4, 1) }], MODEL);
  t.same(
    (await server.search(axis(4, 1), 2, { model: MODEL })).map((h) => h.text),
    ['four'],
  );
  // Another connection clears and fills with another dimension.
  await cli.clear();
  await cli.replace(
    resource('item', 4),
    [
      { text: 'six', vector: axis(6, 2) },
      { text: 'six b', vector: axis(6, 5) },
    ],
    MODEL,
  );
  t.same(
    (await server.search(axis(6, 5), 5, { model: MODEL })).map((h) => h.text),
    ['six b', 'six'],
  );
  t.same(
    server.searchCounts,
    { firstPass: 4, scan: 0 },
    'every search by the matrix (but the one of an empty index), of the dimension then held',
  );
});

t.test('reopened, the index reads its matrix from the file and searches at once', async (t) => {
  const file = `${t.testdir()}/vector-index.sqlite`;
  const first = new SqliteVectorIndex(file);
  await fill(first);
  await first.replace(resource('media', 9, [2], [40]), [{ text: 'kept', vector: axis(8, 6) }], MODEL);
  await first.close();
  const reopened = new SqliteVectorIndex(file, { minMargin: 20 });
  const scan = new SqliteVectorIndex(file, { maxCandidateShare: 0 });
  t.teardown(async () => {
    await reopened.close();
    await scan.close();
  });
  for (const [query, filter] of [
    [axis(8, 6), {}],
    [axis(8, 0, 3, 0.4), {}],
    [axis(8, 6), { siteId: 1 }],
  ] as const) {
    t.same(
      await reopened.search(query, 20, { model: MODEL, ...filter }),
      await scan.search(query, 20, { model: MODEL, ...filter }),
    );
  }
  t.equal((await reopened.search(axis(8, 6), 1, { model: MODEL }))[0].text, 'kept');
  t.equal(reopened.searchCounts.firstPass, 4);
});

t.test(
  'read in the background: a search waits for the matrix rather than scan every chunk, and writes made meanwhile are in it',
  async (t) => {
    const file = `${t.testdir()}/vector-index.sqlite`;
    const writer = new SqliteVectorIndex(file);
    const random = seeded(9);
    // More rows than one batch (2,000), so that the writes below fall before and after the rows read.
    for (let id = 1; id <= 5000; id++) {
      await writer.replace(
        resource('item', id),
        [{ text: `${id}`, vector: Float32Array.from({ length: 8 }, () => random() - 0.5) }],
        MODEL,
      );
    }
    await writer.close();
    const query = axis(8, 2, 5, 0.3);
    // As a server opens it, its first search meeting the matrix unread.
    const first = new SqliteVectorIndex(file, { readInBackground: true, minMargin: 20 });
    const index = new SqliteVectorIndex(file, { readInBackground: true, minMargin: 20 });
    const scan = new SqliteVectorIndex(file, { maxCandidateShare: 0 });
    t.teardown(async () => {
      for (const opened of [first, index, scan]) await opened.close();
    });
    t.same(await first.search(query, 10, { model: MODEL }), await scan.search(query, 10, { model: MODEL }));
    t.same(first.searchCounts, { firstPass: 1, scan: 0 }, 'the first search waited for the matrix: no scan');

    // As a server warms it once it listens, writing while the matrix is read.
    index.warm(MODEL);
    await new Promise((resolve) => setImmediate(resolve));
    await index.replace(resource('item', 10), [{ text: 'read, then moved', vector: query }], MODEL);
    await index.replace(resource('item', 4000), [{ text: 'not read yet, moved', vector: axis(8, 2, 5, 0.31) }], MODEL);
    await index.remove('item', 11);
    await index.remove('item', 4001);
    for (const q of [query, axis(8, 1), axis(8, 6, 7, -0.5)]) {
      t.same(await index.search(q, 30, { model: MODEL }), await scan.search(q, 30, { model: MODEL }));
    }
    t.same(
      (await index.search(query, 2, { model: MODEL })).map((h) => h.text),
      ['read, then moved', 'not read yet, moved'],
    );
    t.same(index.searchCounts, { firstPass: 4, scan: 0 }, 'the first pass answers every search');
  },
);

t.test("read in the background: another connection's write stops the reading; a close during it is safe", async (t) => {
  const file = `${t.testdir()}/vector-index.sqlite`;
  const server = new SqliteVectorIndex(file, { readInBackground: true, reloadPauseMs: 50, minMargin: 20 });
  const cli = new SqliteVectorIndex(file);
  t.teardown(async () => {
    await server.close();
    await cli.close();
  });
  for (let id = 1; id <= 5000; id++)
    await cli.replace(
      resource('item', id),
      [{ text: `${id}`, vector: axis(8, id % 8, (id + 1) % 8, id / 5000) }],
      MODEL,
    );
  const query = axis(8, 3);
  server.warm(MODEL);
  await new Promise((resolve) => setImmediate(resolve));
  await cli.replace(resource('item', 1), [{ text: 'on the query', vector: query }], MODEL);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(
    (await server.search(query, 1, { model: MODEL }))[0].text,
    'on the query',
    'scanned, the other connection being at work',
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  await server.readMatrix(MODEL);
  t.equal((await server.search(query, 1, { model: MODEL }))[0].text, 'on the query');
  t.same(
    server.searchCounts,
    { firstPass: 1, scan: 1 },
    'the reading started again from the file as the other connection left it',
  );

  const closing = new SqliteVectorIndex(file, { readInBackground: true });
  closing.warm(MODEL);
  await closing.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.pass('no batch is read after the close');
});
