import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryVectorIndex } from '../../../infra/vector-index/memory.js';
import { passesFilter, type IndexedResource, type SearchFilter, type VectorHit } from '../../../infra/vector-index/port.js';
import { simdInt8Dots } from '../../../infra/vector-index/simd-int8-dot.js';
import { seededRandom } from '../../seeded-random.js';

/** Rounding of float32 storage: far below the gaps the near-ties below are built with. */
const TOLERANCE = 1e-6;

/** A seeded generator, so a failure can be replayed. */
function generator(seed: number) {
  const uniform = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  return { uniform, gaussian, int: (n: number) => Math.floor(uniform() * n) };
}
type Generator = ReturnType<typeof generator>;

interface StoredChunk {
  resource: IndexedResource;
  chunkIndex: number;
  vector: Float32Array;
}

/**
 * Vectors of several kinds: random; near one of a few centres with noise small enough that cosines
 * differ by 1e-5 to 1e-3, well inside the int8 quantisation error, so the approximate scores cannot
 * rank them and the re-ranking must; exact copies (true ties); sparse, peaked ones.
 */
function vectorFactory(random: Generator, dim: number) {
  const centres = Array.from({ length: 4 }, () => Float32Array.from({ length: dim }, random.gaussian));
  const copies: Float32Array[] = [];
  return (): Float32Array => {
    const kind = random.uniform();
    let vector: Float32Array;
    if (kind < 0.3) vector = Float32Array.from({ length: dim }, random.gaussian);
    else if (kind < 0.85) {
      const centre = centres[random.int(centres.length)];
      const noise = [0.003, 0.01, 0.03][random.int(3)];
      vector = centre.map((x) => x + noise * random.gaussian());
    } else if (kind < 0.95 && copies.length > 0) vector = copies[random.int(copies.length)].slice();
    else {
      vector = new Float32Array(dim);
      for (let n = 0; n < 3; n++) vector[random.int(dim)] = random.gaussian();
      vector[random.int(dim)] += 5;
    }
    // Not normalised: the index must do it.
    const scale = 0.5 + 3 * random.uniform();
    vector = vector.map((x) => x * scale);
    if (copies.length < 50) copies.push(vector);
    return vector;
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

const keyOf = (hit: Pick<VectorHit, 'resourceType' | 'resourceId' | 'chunkIndex'>) => `${hit.resourceType}-${hit.resourceId}-${hit.chunkIndex}`;

/** The float64 brute-force answer: every allowed chunk by cosine, nearest first. */
function reference(stored: Map<string, StoredChunk>, query: Float32Array, filter: SearchFilter) {
  return [...stored.values()]
    .filter((chunk) => passesFilter(chunk.resource, filter))
    .map((chunk) => ({ key: keyOf({ ...chunk.resource, chunkIndex: chunk.chunkIndex }), distance: Math.min(2, Math.max(0, 1 - cosine(chunk.vector, query))) }))
    .sort((a, b) => a.distance - b.distance);
}

/**
 * The hits are the exact top k: the same distances rank by rank, each hit really at its distance,
 * no chunk twice, and the same chunk at every rank whose distance is not tied with a neighbour's.
 */
function checkExact(t: Test, hits: VectorHit[], stored: Map<string, StoredChunk>, query: Float32Array, k: number, filter: SearchFilter, label: string): void {
  const expected = reference(stored, query, filter);
  const distanceOf = new Map(expected.map((e) => [e.key, e.distance]));
  const problems: string[] = [];
  if (hits.length !== Math.min(k, expected.length)) problems.push(`${hits.length} hits for ${Math.min(k, expected.length)}`);
  if (new Set(hits.map(keyOf)).size !== hits.length) problems.push('a chunk twice');
  hits.forEach((hit, rank) => {
    const key = keyOf(hit);
    const own = distanceOf.get(key);
    if (own === undefined) problems.push(`rank ${rank}: ${key} is not allowed or not stored`);
    else if (Math.abs(own - hit.distance) > TOLERANCE) problems.push(`rank ${rank}: ${key} at ${hit.distance}, really ${own}`);
    if (Math.abs(hit.distance - expected[rank].distance) > TOLERANCE) problems.push(`rank ${rank}: distance ${hit.distance}, expected ${expected[rank].distance}`);
    const tiedBefore = rank > 0 && expected[rank].distance - expected[rank - 1].distance <= TOLERANCE;
    const tiedAfter = rank + 1 < expected.length && expected[rank + 1].distance - expected[rank].distance <= TOLERANCE;
    if (!tiedBefore && !tiedAfter && key !== expected[rank].key) problems.push(`rank ${rank}: ${key}, expected ${expected[rank].key}`);
  });
  t.same(problems, [], label);
}

const filters: SearchFilter[] = [{}, { siteId: 2 }, { itemSetIds: [7] }, { siteId: 1, itemSetIds: [5, 6] }];

/** Fills an index (and the reference) with resources of 1 to 5 chunks: `count` chunks in all. */
async function fill(index: MemoryVectorIndex, stored: Map<string, StoredChunk>, random: Generator, next: () => Float32Array, count: number): Promise<void> {
  for (let id = 1, held = 0; held < count; id++) {
    const vectors = Array.from({ length: 1 + random.int(5) }, next);
    await replace(index, stored, id, vectors);
    held += vectors.length;
  }
}

/** Resources of every type, on sites 1 to 3, items and media in item sets 5 to 8. */
function resourceFor(id: number): IndexedResource {
  const resourceType = (['item', 'media', 'blog_post', 'site_page'] as const)[id % 4];
  return {
    resourceType,
    resourceId: id,
    title: `${resourceType} ${id}`,
    path: `/${resourceType}/${id}`,
    siteIds: [1 + (id % 3)],
    itemSetIds: resourceType === 'item' || resourceType === 'media' ? [5 + (Math.floor(id / 4) % 4)] : [],
  };
}

const chunksOf = (resource: Pick<IndexedResource, 'resourceType' | 'resourceId'>) => `${resource.resourceType}-${resource.resourceId}-`;

async function replace(index: MemoryVectorIndex, stored: Map<string, StoredChunk>, id: number, vectors: Float32Array[]): Promise<void> {
  const resource = resourceFor(id);
  for (const key of [...stored.keys()]) if (key.startsWith(chunksOf(resource))) stored.delete(key);
  await index.replace(resource, vectors.map((vector, i) => ({ text: `${resource.title} chunk ${i}`, vector })));
  vectors.forEach((vector, chunkIndex) => stored.set(keyOf({ ...resource, chunkIndex }), { resource, chunkIndex, vector }));
}

async function remove(index: MemoryVectorIndex, stored: Map<string, StoredChunk>, resource: IndexedResource): Promise<void> {
  for (const key of [...stored.keys()]) if (key.startsWith(chunksOf(resource))) stored.delete(key);
  await index.remove(resource.resourceType, resource.resourceId);
}

/** Queries near the data: random, near stored vectors (so near the clusters), equal to stored ones, and zero. */
function queries(random: Generator, stored: Map<string, StoredChunk>, dim: number): Float32Array[] {
  const chunks = [...stored.values()];
  const near = (noise: number) => {
    const base = chunks[random.int(chunks.length)].vector;
    return base.map((x) => x + noise * random.gaussian());
  };
  return [
    ...Array.from({ length: 3 }, () => Float32Array.from({ length: dim }, random.gaussian)),
    ...Array.from({ length: 6 }, () => near(0.01)),
    ...Array.from({ length: 3 }, () => near(0.2)),
    chunks[random.int(chunks.length)].vector.slice(),
    new Float32Array(dim),
  ];
}

async function checkAll(t: Test, indexes: MemoryVectorIndex[], stored: Map<string, StoredChunk>, random: Generator, dim: number, label: string) {
  for (const [q, query] of queries(random, stored, dim).entries()) {
    for (const k of [1, 5, 50]) {
      for (const filter of filters) {
        const [first, ...others] = await Promise.all(indexes.map((index) => index.search(query, k, filter)));
        checkExact(t, first, stored, query, k, filter, `${label}: query ${q}, k ${k}, filter ${JSON.stringify(filter)}`);
        for (const other of others) t.same(other, first, 'the JavaScript scan answers as the SIMD kernel does');
      }
    }
  }
}

for (const dim of [512, 400, 100]) {
  t.test(`exact top k at ${dim} dimensions, SIMD kernel and JavaScript alike, through removals and replacements`, async (t) => {
    const random = generator(dim);
    const next = vectorFactory(random, dim);
    const simd = new MemoryVectorIndex();
    const scalar = new MemoryVectorIndex({ simd: false });
    t.teardown(async () => {
      await simd.close();
      await scalar.close();
    });
    const stored = new Map<string, StoredChunk>();
    // Both indexes get the same calls; the reference follows the first.
    const both = {
      async replace(id: number, vectors: Float32Array[]) {
        await replace(simd, stored, id, vectors);
        await replace(scalar, new Map(), id, vectors);
      },
      async remove(resource: IndexedResource) {
        await remove(simd, stored, resource);
        await remove(scalar, new Map(), resource);
      },
    };
    let id = 1;
    for (let held = 0; held < 3000; id++) {
      const vectors = Array.from({ length: 1 + random.int(5) }, next);
      await both.replace(id, vectors);
      held += vectors.length;
    }
    t.equal(await simd.size(), stored.size);
    t.equal(await scalar.size(), stored.size);
    await checkAll(t, [simd, scalar], stored, random, dim, 'filled');

    // Removals move the last slots into the holes; replacements change a resource's number of chunks.
    for (let n = 0; n < 300; n++) {
      const chunks = [...stored.values()];
      const { resource } = chunks[random.int(chunks.length)];
      if (n % 2 === 0) await both.remove(resource);
      else await both.replace(resource.resourceId, Array.from({ length: 1 + random.int(5) }, next));
    }
    for (let n = 0; n < 100; n++) await both.replace(id++, [next()]);
    t.equal(await simd.size(), stored.size);
    await checkAll(t, [simd, scalar], stored, random, dim, 'after removals and replacements');
  });
}

t.test('a dimension of a few components, and an index cleared then refilled with another dimension', async (t) => {
  const random = generator(3);
  const index = new MemoryVectorIndex();
  t.teardown(() => index.close());
  const stored = new Map<string, StoredChunk>();
  await fill(index, stored, random, vectorFactory(random, 3), 200);
  await checkAll(t, [index], stored, random, 3, 'dimension 3');
  await index.clear();
  stored.clear();
  t.equal(await index.size(), 0);
  await fill(index, stored, random, vectorFactory(random, 48), 500);
  await checkAll(t, [index], stored, random, 48, 'dimension 48 after clear');
});

t.test('the error bound holds where quantisation errs the most', async (t) => {
  for (const dim of [64, 100]) {
    // Components just under half a step above a code: the query and the target both round down
    // everywhere, so their approximate score falls short by nearly the whole bound (about 97% of
    // it). The decoys' codes are exact: their approximate scores beat the target's although
    // their true scores are lower. Only a true bound keeps the target among the candidates.
    const almostHalf = (first: number, rest: number) => Float32Array.from({ length: dim }, (_, i) => (i === 0 ? first : rest));
    const query = almostHalf(127, 60.49);
    const index = new MemoryVectorIndex();
    t.teardown(() => index.close());
    const stored = new Map<string, StoredChunk>();
    const decoys = [0, 1, 5, 20].map((raised) => Float32Array.from({ length: dim }, (_, i) => (i === 0 ? 127 : i <= raised ? 61 : 60)));
    for (let copy = 0; copy < 20; copy++) await replace(index, stored, 100 + copy, decoys);
    await replace(index, stored, 1, [almostHalf(127, 60.49)]);
    for (const k of [1, 3, 30]) {
      const hits = await index.search(query, k);
      t.equal(keyOf(hits[0]), 'media-1-0', `dimension ${dim}, k ${k}: the target first`);
      checkExact(t, hits, stored, query, k, {}, `dimension ${dim}, k ${k}`);
    }
  }
});

t.test('the int8 kernel computes exact integer dot products', async (t) => {
  const memory = new WebAssembly.Memory({ initial: 8 });
  const dots = simdInt8Dots(memory);
  if (!dots) {
    t.fail('no WebAssembly SIMD here');
    return;
  }
  const random = generator(11);
  for (const stride of [16, 48, 64, 80, 512]) {
    const count = 97;
    const codes = new Int8Array(memory.buffer, 0, count * stride);
    // The extremes included: the products and sums must not saturate.
    codes.forEach((_, i) => (codes[i] = random.uniform() < 0.2 ? 127 * (random.uniform() < 0.5 ? -1 : 1) : random.int(255) - 127));
    const queryAt = count * stride;
    const query = new Int16Array(memory.buffer, queryAt, stride);
    query.forEach((_, i) => (query[i] = random.uniform() < 0.2 ? -127 : random.int(255) - 127));
    const outAt = queryAt + 2 * stride;
    dots(queryAt, 0, count, stride, outAt);
    const out = new Int32Array(memory.buffer, outAt, count);
    const wrong: number[] = [];
    for (let slot = 0; slot < count; slot++) {
      let dot = 0;
      for (let i = 0; i < stride; i++) dot += codes[slot * stride + i] * query[i];
      if (out[slot] !== dot) wrong.push(slot);
    }
    t.same(wrong, [], `stride ${stride}`);
  }
});

t.test('searches use the SIMD kernel where WebAssembly SIMD exists', async (t) => {
  const available = simdInt8Dots(new WebAssembly.Memory({ initial: 1 })) !== null;
  t.ok(available, 'Node 20 has WebAssembly SIMD');
  const index = new MemoryVectorIndex();
  const scalar = new MemoryVectorIndex({ simd: false });
  t.teardown(async () => {
    await index.close();
    await scalar.close();
  });
  t.equal(index.usesSimd, available);
  t.equal(scalar.usesSimd, false);
});

t.test('the full-precision vectors live in a file of the given directory, deleted on close', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'vector-index-test-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const crashed = 'vectors-999999999-0123abcd.f32';
  const previousRun = `vectors-${process.pid}-4567cdef.f32`;
  const liveProcess = `vectors-${process.ppid}-89abcdef.f32`;
  for (const name of [crashed, previousRun, liveProcess, 'unrelated.txt']) writeFileSync(join(directory, name), 'not this index\'s');
  const index = new MemoryVectorIndex({ directory });
  const files = () => readdirSync(directory).filter((name) => name.startsWith(`vectors-${process.pid}-`));
  t.equal(files().length, 1, 'a new vector file');
  const texts = () => readdirSync(directory).filter((name) => name.startsWith(`texts-${process.pid}-`));
  t.equal(texts().length, 1, 'a new chunk text file');
  const others = readdirSync(directory).filter((name) => !files().includes(name) && !texts().includes(name));
  t.same(others.sort(), [liveProcess, 'unrelated.txt'].sort(), 'files of processes that are gone are deleted, others left alone');
  const [file] = files();
  const size = () => statSync(join(directory, file)).size;

  const other = new MemoryVectorIndex({ directory });
  t.equal(files().length, 2, 'a second index in the same directory keeps the first one\'s file');
  await other.close();
  t.same(files(), [file]);

  const vector = (axis: number) => Float32Array.from({ length: 20 }, (_, i) => (i === axis ? 2 : 0.1));
  const item = (resourceId: number): IndexedResource => ({ resourceType: 'item', resourceId, title: 't', path: '/item', siteIds: [1], itemSetIds: [] });
  await index.replace(item(1), [{ text: 'a', vector: vector(0) }, { text: 'b', vector: vector(1) }]);
  await index.replace(item(2), [{ text: 'c', vector: vector(2) }]);
  t.equal(size(), 3 * 20 * 4, 'float32 per component');
  await index.remove('item', 1);
  t.equal(size(), 20 * 4, 'removal shrinks it');
  const [hit] = await index.search(vector(2), 1);
  t.equal(hit.text, 'c', 'the moved vector moved in the file too');
  t.ok(hit.distance < 1e-6);
  await index.clear();
  t.equal(size(), 0, 'clear empties it');
  await index.close();
  t.same(files(), [], 'close deletes it');
  t.same(texts(), [], 'and the text file');
  await index.close();
  t.pass('closing twice is fine');
});

t.test('an index never closed leaves no file behind when the process exits', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'vector-index-test-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const memoryModule = new URL('../../../infra/vector-index/memory.ts', import.meta.url).href;
  const script = `
    const { MemoryVectorIndex } = await import(${JSON.stringify(memoryModule)});
    const index = new MemoryVectorIndex({ directory: ${JSON.stringify(directory)} });
    await index.replace({ resourceType: 'item', resourceId: 1, title: 't', path: '/item/1', siteIds: [1], itemSetIds: [] }, [{ text: 'a', vector: new Float32Array(16).fill(1) }]);
    console.log(require('node:fs').readdirSync(${JSON.stringify(directory)}).length);
  `;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=commonjs', '-e', `(async () => {${script}})()`], { encoding: 'utf8' });
  t.equal(output.trim(), '2', 'the vector and text files existed while the process ran');
  t.same(readdirSync(directory), [], 'and is gone after it exited');
});

t.test('vectors of the wrong dimension are refused', async (t) => {
  const index = new MemoryVectorIndex();
  t.teardown(() => index.close());
  await index.replace({ resourceType: 'item', resourceId: 1, title: 't', path: '/item/1', siteIds: [1], itemSetIds: [] }, [{ text: 'a', vector: new Float32Array(16).fill(1) }]);
  await t.rejects(index.search(new Float32Array(8).fill(1), 1), /dimension 8/);
  await t.rejects(index.replace({ resourceType: 'item', resourceId: 2, title: 't', path: '/item/2', siteIds: [1], itemSetIds: [] }, [{ text: 'b', vector: new Float32Array(8) }]), /dimension 8/);
  t.equal(await index.size(), 1);
});

t.test('chunk texts live in a file: read back for hits, kept right across moves, compacted once mostly dead', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'vector-index-texts-'));
  t.teardown(() => rmSync(directory, { recursive: true, force: true }));
  const index = new MemoryVectorIndex({ directory });
  t.teardown(() => index.close());
  const textFile = () => join(directory, readdirSync(directory).find((name) => name.startsWith('texts-')) as string);
  const vector = (axis: number) => Float32Array.from({ length: 32 }, (_, i) => (i === axis ? 2 : 0.05));
  const item = (resourceId: number): IndexedResource => ({ resourceType: 'item', resourceId, title: `t${resourceId}`, path: `/item/${resourceId}`, siteIds: [1], itemSetIds: [] });
  await index.replace(item(1), [{ text: 'première — ünïcode', vector: vector(0) }]);
  await index.replace(item(2), [{ text: 'second', vector: vector(1) }, { text: 'third', vector: vector(2) }]);
  const big = 'x'.repeat(1024 * 1024);
  // Each replacement of item 3 leaves its previous megabyte dead; well past 32 MB the file is rewritten.
  for (let round = 0; round < 40; round++) await index.replace(item(3), [{ text: `${round}:${big}`, vector: vector(3) }]);
  // Compacted at 32 MB dead, then seven more dead megabytes and the live one: far below the 40 MB written.
  t.ok(statSync(textFile()).size < 10 * 1024 * 1024, `compacted (${statSync(textFile()).size} bytes)`);
  const textOf = async (axis: number) => (await index.search(vector(axis), 1))[0].text;
  t.equal(await textOf(0), 'première — ünïcode', 'UTF-8 round trip');
  t.equal(await textOf(1), 'second');
  t.equal(await textOf(2), 'third');
  t.equal(await textOf(3), `39:${big}`, 'the latest text');
  await index.remove('item', 1);
  t.equal(await textOf(2), 'third', 'a slot moved into the hole keeps its text');
});
