import { simdDots, type DotsKernel } from './simd-dot.js';
import { passesFilter, resourceKey, type ChunkInput, type IndexedResource, type ResourceType, type SearchFilter, type VectorHit, type VectorIndex } from './port.js';

interface ResourceEntry {
  resource: IndexedResource;
  /** Slots of the resource's chunks in the flat arrays. */
  slots: number[];
}

const PAGE = 65536;

/**
 * The embedded vector index: every vector in one flat float32 array, scanned exactly. Filters
 * are resolved per resource before the scan, so the hot loop touches typed arrays only.
 * Vectors are stored normalised, which makes the dot product the cosine. The array lives in a
 * WebAssembly memory so a SIMD kernel can scan it; without SIMD a JavaScript loop does.
 */
export class MemoryVectorIndex implements VectorIndex {
  readonly persistent = false;
  private dimension = 0;
  private count = 0;
  private capacity = 0;
  private readonly memory = new WebAssembly.Memory({ initial: 1 });
  private readonly kernel: DotsKernel | null = simdDots(this.memory);
  private view = new Float32Array(this.memory.buffer);
  /** For each slot, the number of its resource in `entries`. */
  private slotEntry = new Int32Array(0);
  private slotText: string[] = [];
  private slotChunk = new Int32Array(0);
  private entries: (ResourceEntry | null)[] = [];
  private readonly entryByKey = new Map<string, number>();
  private readonly freeEntries: number[] = [];

  async replace(resource: IndexedResource, chunks: ChunkInput[]): Promise<void> {
    for (const chunk of chunks) this.checkDimension(chunk.vector);
    this.removeSync(resource.resourceType, resource.resourceId);
    if (chunks.length === 0) return;
    const entryNo = this.freeEntries.pop() ?? this.entries.length;
    const entry: ResourceEntry = { resource: { ...resource, siteIds: [...resource.siteIds], itemSetIds: [...resource.itemSetIds] }, slots: [] };
    this.entries[entryNo] = entry;
    this.entryByKey.set(resourceKey(resource.resourceType, resource.resourceId), entryNo);
    this.ensureCapacity(this.count + chunks.length);
    chunks.forEach((chunk, index) => {
      const slot = this.count++;
      const offset = slot * this.dimension;
      let sum = 0;
      for (let i = 0; i < this.dimension; i++) sum += chunk.vector[i] * chunk.vector[i];
      const inverse = sum > 0 ? 1 / Math.sqrt(sum) : 0;
      const vectors = this.floats();
      for (let i = 0; i < this.dimension; i++) vectors[offset + i] = chunk.vector[i] * inverse;
      this.slotEntry[slot] = entryNo;
      this.slotChunk[slot] = index;
      this.slotText[slot] = chunk.text;
      entry.slots.push(slot);
    });
  }

  async remove(resourceType: ResourceType, resourceId: number): Promise<void> {
    this.removeSync(resourceType, resourceId);
  }

  async search(vector: Float32Array, k: number, filter: SearchFilter = {}): Promise<VectorHit[]> {
    if (this.count === 0 || k <= 0) return [];
    this.checkDimension(vector);
    const query = normalised(vector);
    const allowed = new Uint8Array(this.entries.length);
    let anyAllowed = false;
    this.entries.forEach((entry, n) => {
      if (entry && passesFilter(entry.resource, filter)) {
        allowed[n] = 1;
        anyAllowed = true;
      }
    });
    if (!anyAllowed) return [];

    const scores = this.scores(query);
    // The best k so far, kept sorted by similarity descending (k is small: at most a few hundred).
    const topScore = new Float64Array(k);
    const topSlot = new Int32Array(k);
    let held = 0;
    const slotEntry = this.slotEntry;
    const count = this.count;
    for (let slot = 0; slot < count; slot++) {
      if (allowed[slotEntry[slot]] === 0) continue;
      const score = scores[slot];
      if (held === k && score <= topScore[k - 1]) continue;
      let at = held < k ? held++ : k - 1;
      while (at > 0 && topScore[at - 1] < score) {
        topScore[at] = topScore[at - 1];
        topSlot[at] = topSlot[at - 1];
        at--;
      }
      topScore[at] = score;
      topSlot[at] = slot;
    }

    const hits: VectorHit[] = [];
    for (let n = 0; n < held; n++) {
      const slot = topSlot[n];
      const resource = (this.entries[slotEntry[slot]] as ResourceEntry).resource;
      hits.push({
        resourceType: resource.resourceType,
        resourceId: resource.resourceId,
        title: resource.title,
        path: resource.path,
        text: this.slotText[slot],
        chunkIndex: this.slotChunk[slot],
        distance: Math.min(2, Math.max(0, 1 - topScore[n])),
      });
    }
    return hits;
  }

  async size(): Promise<number> {
    return this.count;
  }

  async clear(): Promise<void> {
    this.count = 0;
    this.capacity = 0;
    this.dimension = 0;
    this.slotEntry = new Int32Array(0);
    this.slotChunk = new Int32Array(0);
    this.slotText = [];
    this.entries = [];
    this.entryByKey.clear();
    this.freeEntries.length = 0;
  }

  async close(): Promise<void> {
    await this.clear();
  }

  /** The stored floats; a fresh view whenever the memory has grown (growing detaches the old one). */
  private floats(): Float32Array {
    if (this.view.buffer !== this.memory.buffer) this.view = new Float32Array(this.memory.buffer);
    return this.view;
  }

  private ensureBytes(bytes: number): void {
    const missing = bytes - this.memory.buffer.byteLength;
    if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE));
  }

  /** The similarity of every stored vector to the query, by slot. */
  private scores(query: Float32Array): Float32Array {
    const dim = this.dimension;
    const count = this.count;
    if (this.kernel && dim % 16 === 0) {
      // Scratch space right after the stored vectors: the query, then one score per slot.
      const queryAt = count * dim * 4;
      const outAt = queryAt + dim * 4;
      this.ensureBytes(outAt + count * 4);
      this.floats().set(query, queryAt / 4);
      this.kernel(queryAt, 0, count, dim, outAt);
      return new Float32Array(this.memory.buffer, outAt, count);
    }
    const vectors = this.floats();
    const scores = new Float32Array(count);
    for (let slot = 0; slot < count; slot++) {
      const offset = slot * dim;
      let dot0 = 0;
      let dot1 = 0;
      let dot2 = 0;
      let dot3 = 0;
      let i = 0;
      for (; i + 3 < dim; i += 4) {
        dot0 += vectors[offset + i] * query[i];
        dot1 += vectors[offset + i + 1] * query[i + 1];
        dot2 += vectors[offset + i + 2] * query[i + 2];
        dot3 += vectors[offset + i + 3] * query[i + 3];
      }
      for (; i < dim; i++) dot0 += vectors[offset + i] * query[i];
      scores[slot] = dot0 + dot1 + dot2 + dot3;
    }
    return scores;
  }

  private checkDimension(vector: Float32Array): void {
    if (this.dimension === 0) this.dimension = vector.length;
    if (vector.length !== this.dimension) {
      throw new Error(`Vector of dimension ${vector.length} given to an index of dimension ${this.dimension}.`);
    }
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.capacity) return;
    const next = Math.max(slots, this.capacity * 2, 64);
    // Vectors start at byte 0, so growing the memory keeps them where they are.
    this.ensureBytes(next * this.dimension * 4);
    const slotEntry = new Int32Array(next);
    slotEntry.set(this.slotEntry.subarray(0, this.count));
    this.slotEntry = slotEntry;
    const slotChunk = new Int32Array(next);
    slotChunk.set(this.slotChunk.subarray(0, this.count));
    this.slotChunk = slotChunk;
    this.capacity = next;
  }

  /** Frees the resource's slots by moving the last slots into them, so the arrays stay dense. */
  private removeSync(resourceType: ResourceType, resourceId: number): void {
    const key = resourceKey(resourceType, resourceId);
    const entryNo = this.entryByKey.get(key);
    if (entryNo === undefined) return;
    const entry = this.entries[entryNo] as ResourceEntry;
    const holes = [...entry.slots].sort((a, b) => b - a);
    for (const hole of holes) {
      const last = this.count - 1;
      if (hole !== last) this.moveSlot(last, hole);
      this.slotText.length = last;
      this.count = last;
    }
    this.entries[entryNo] = null;
    this.entryByKey.delete(key);
    this.freeEntries.push(entryNo);
  }

  private moveSlot(from: number, to: number): void {
    const dim = this.dimension;
    this.floats().copyWithin(to * dim, from * dim, from * dim + dim);
    const entryNo = this.slotEntry[from];
    this.slotEntry[to] = entryNo;
    this.slotChunk[to] = this.slotChunk[from];
    this.slotText[to] = this.slotText[from];
    const owner = this.entries[entryNo] as ResourceEntry;
    owner.slots[owner.slots.indexOf(from)] = to;
  }
}

function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const inverse = 1 / Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i] * inverse;
  return out;
}
