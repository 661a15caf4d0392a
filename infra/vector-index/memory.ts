import { sharedList } from '../shared-lists.js';
import { FloatVectorFile } from './float-file.js';
import { ChunkTextFile } from './text-file.js';
import { simdInt8Dots, type Int8DotsKernel } from './simd-int8-dot.js';
import { passesFilter, resourceKey, UNNAMED_MODEL, type ChunkInput, type IndexedResource, type ResourceType, type SearchFilter, type VectorHit, type VectorIndex } from './port.js';

interface ResourceEntry {
  resource: IndexedResource;
  /** The model that made the vectors of its chunks. */
  model: string;
  /** Slots of the resource's chunks in the flat arrays. */
  slots: number[];
}

export interface MemoryVectorIndexOptions {
  /** Where the files of full-precision vectors and chunk texts go; a fresh temporary directory when absent. */
  directory?: string;
  /** False scans in JavaScript even where WebAssembly SIMD exists, so tests can compare the two. */
  simd?: boolean;
}

const PAGE = 65536;
const CODE_MAX = 127;
/** The kernel reads codes 16 at a time; a dimension that is not a multiple is padded with zero codes, which add nothing. */
const CODE_ALIGN = 16;
/** Dot products of codes of at most 127 in magnitude stay exact in int32 up to this many dimensions. */
const MAX_DIMENSION = Math.floor((2 ** 31 - 1) / (CODE_MAX * CODE_MAX));
/** What the error bound needs per slot, in `slotErrors` (see `errorBound`). */
const ERROR_TERMS = 4;
const RESIDUAL_MAX = 0;
const RESIDUAL_NORM = 1;
const DEQUANTISED_L1 = 2;
const DEQUANTISED_NORM = 3;
/**
 * Slack on the error bound, far above every rounding it has to cover: float32 storage of the
 * per-slot terms (relative 2^-24); float64 evaluation of the terms, the approximate score and the
 * bound (relative about dim * 2^-53); and float64 evaluation of the exact scores the candidates
 * are ranked by (absolute about dim * 2^-53). It adds no measurable number of candidates.
 */
const BOUND_RELATIVE_SLACK = 1 + 2 ** -20;
const BOUND_ABSOLUTE_SLACK = 2 ** -30;
/** Candidates at most this many slots apart are read in one call: a few unneeded vectors cost less than a system call. */
const READ_GAP = 8;
const READ_MAX_SLOTS = 256;

/**
 * The embedded vector index, exact. Vectors are stored normalised, which makes the dot product
 * the cosine. Memory holds each vector as int8 codes with a scale (a quarter of float32), in a
 * WebAssembly memory that a SIMD kernel scans; without SIMD a JavaScript loop does. The codes
 * give every slot an approximate score and a rigorous error bound; only the slots whose upper
 * bound reaches the k-th best lower bound can be in the top k, and those few are re-ranked with
 * their full-precision vectors, read from a file (the page cache holds them, not the process).
 * Filters are resolved per resource before the scan, so the hot loops touch typed arrays only.
 */
export class MemoryVectorIndex implements VectorIndex {
  readonly persistent = false;
  private dimension = 0;
  /** Bytes of codes per slot: the dimension rounded up to a multiple of 16. */
  private stride = 0;
  private count = 0;
  private capacity = 0;
  private readonly memory = new WebAssembly.Memory({ initial: 1 });
  private readonly kernel: Int8DotsKernel | null;
  private codeView = new Int8Array(this.memory.buffer);
  /** Per slot: the scale its codes are multiplied by. */
  private slotScale = new Float32Array(0);
  /** Per slot, ERROR_TERMS numbers: what quantising its vector left (see `quantise`). */
  private slotErrors = new Float32Array(0);
  /** For each slot, the number of its resource in `entries`. */
  private slotEntry = new Int32Array(0);
  /** Where each slot's chunk text is in the text file: offset and length in bytes. */
  private slotTextOffset = new Float64Array(0);
  private slotTextLength = new Int32Array(0);
  private slotChunk = new Int32Array(0);
  private entries: (ResourceEntry | null)[] = [];
  private readonly entryByKey = new Map<string, number>();
  /** Chunks held per model: a search for a model that made them all is spared a pass over the resources. */
  private readonly chunksByModel = new Map<string, number>();
  private readonly freeEntries: number[] = [];
  private readonly floats: FloatVectorFile;
  private readonly texts: ChunkTextFile;
  /** The largest of each error term over every slot stored since the last clear (removals leave it as is: still a bound). */
  private largestErrors = new Float32Array(ERROR_TERMS);
  /** Scratch kept between searches to spare the allocation. */
  private floatBuffer = new Float32Array(0);

  constructor(options: MemoryVectorIndexOptions = {}) {
    this.kernel = options.simd === false ? null : simdInt8Dots(this.memory);
    this.floats = FloatVectorFile.create(options.directory);
    this.texts = ChunkTextFile.create(options.directory);
  }

  /** Whether searches scan with the WebAssembly SIMD kernel (else with JavaScript). */
  get usesSimd(): boolean {
    return this.kernel !== null;
  }

  async replace(resource: IndexedResource, chunks: ChunkInput[], model = UNNAMED_MODEL): Promise<void> {
    // One dimension per index, except that once this replace leaves no other chunk, the chunks
    // may bring another (a reindex with another model). Checked before anything is removed.
    const oldEntryNo = this.entryByKey.get(resourceKey(resource.resourceType, resource.resourceId));
    const held = oldEntryNo === undefined ? 0 : (this.entries[oldEntryNo] as ResourceEntry).slots.length;
    if (this.count > held) for (const chunk of chunks) this.checkDimension(chunk.vector);
    else if (chunks.some((chunk) => chunk.vector.length !== chunks[0].vector.length)) throw new Error('Vectors of one replace must share a dimension.');
    this.removeSync(resource.resourceType, resource.resourceId);
    if (chunks.length === 0) return;
    if (this.count === 0) this.resetDimension();
    for (const chunk of chunks) this.checkDimension(chunk.vector);
    const dim = this.dimension;
    const vectors = new Float32Array(chunks.length * dim);
    chunks.forEach((chunk, index) => normaliseInto(chunk.vector, vectors.subarray(index * dim, (index + 1) * dim)));
    this.ensureCapacity(this.count + chunks.length);
    // The file first: should the write fail, memory still describes the file.
    this.floats.write(this.count, dim, vectors);

    const entryNo = this.freeEntries.pop() ?? this.entries.length;
    // Only the fields the index needs: callers may pass more (the extracted text of the whole resource).
    const kept: IndexedResource = {
      resourceType: resource.resourceType,
      resourceId: resource.resourceId,
      title: resource.title,
      path: resource.path,
      siteIds: sharedList(resource.siteIds),
      itemSetIds: sharedList(resource.itemSetIds),
    };
    // Exactly as long as the chunks: an array grown by push keeps room for 17.
    const entry: ResourceEntry = { resource: kept, model, slots: new Array<number>(chunks.length) };
    this.chunksByModel.set(model, (this.chunksByModel.get(model) ?? 0) + chunks.length);
    this.entries[entryNo] = entry;
    this.entryByKey.set(resourceKey(resource.resourceType, resource.resourceId), entryNo);
    const codes = new Int16Array(this.stride);
    chunks.forEach((chunk, index) => {
      const slot = this.count++;
      this.storeCodes(slot, vectors.subarray(index * dim, (index + 1) * dim), codes);
      this.slotEntry[slot] = entryNo;
      this.slotChunk[slot] = index;
      const { offset, length } = this.texts.append(chunk.text);
      this.slotTextOffset[slot] = offset;
      this.slotTextLength[slot] = length;
      entry.slots[index] = slot;
    });
  }

  async remove(resourceType: ResourceType, resourceId: number): Promise<void> {
    this.removeSync(resourceType, resourceId);
  }

  async search(vector: Float32Array, k: number, filter: SearchFilter = {}): Promise<VectorHit[]> {
    const model = filter.model ?? UNNAMED_MODEL;
    // No chunk of the query's model: nothing to compare with, whatever the others' dimension.
    if (this.count === 0 || k <= 0 || !this.chunksByModel.get(model)) return [];
    this.checkDimension(vector);
    const allowed = this.allowedEntries(filter, model);
    if (!allowed) return [];
    const query = normalised(vector);
    const candidates = this.candidates(query, allowed, k);
    const best = this.exactBest(query, candidates, k);
    return best.map(({ slot, score }) => {
      const resource = (this.entries[this.slotEntry[slot]] as ResourceEntry).resource;
      return {
        resourceType: resource.resourceType,
        resourceId: resource.resourceId,
        title: resource.title,
        path: resource.path,
        text: this.texts.read(this.slotTextOffset[slot], this.slotTextLength[slot]),
        chunkIndex: this.slotChunk[slot],
        distance: Math.min(2, Math.max(0, 1 - score)),
      };
    });
  }

  async size(): Promise<number> {
    return this.count;
  }

  async clear(): Promise<void> {
    this.floats.truncate(0, 0);
    this.texts.clear();
    this.count = 0;
    this.capacity = 0;
    this.dimension = 0;
    this.stride = 0;
    this.slotScale = new Float32Array(0);
    this.slotErrors = new Float32Array(0);
    this.slotEntry = new Int32Array(0);
    this.slotChunk = new Int32Array(0);
    this.slotTextOffset = new Float64Array(0);
    this.slotTextLength = new Int32Array(0);
    this.entries = [];
    this.entryByKey.clear();
    this.chunksByModel.clear();
    this.freeEntries.length = 0;
    this.largestErrors = new Float32Array(ERROR_TERMS);
    this.floatBuffer = new Float32Array(0);
  }

  async close(): Promise<void> {
    await this.clear();
    this.floats.close();
    this.texts.close();
  }

  /**
   * Which resources (by number in `entries`) the filter and the model let through: 'all' for no
   * filter when the model made every chunk (most searches, spared a pass over every resource),
   * null when none passes.
   */
  private allowedEntries(filter: SearchFilter, model: string): Uint8Array | 'all' | null {
    const { entries } = this;
    const everyChunk = this.chunksByModel.get(model) === this.count;
    if (everyChunk && filter.siteId === undefined && !(filter.itemSetIds && filter.itemSetIds.length > 0)) return this.entryByKey.size > 0 ? 'all' : null;
    const allowed = new Uint8Array(entries.length);
    let anyAllowed = false;
    for (let n = 0; n < entries.length; n++) {
      const entry = entries[n];
      if (entry && entry.model === model && passesFilter(entry.resource, filter)) {
        allowed[n] = 1;
        anyAllowed = true;
      }
    }
    return anyAllowed ? allowed : null;
  }

  /**
   * The allowed slots that can be among the k most similar, in slot order. Each slot's true score
   * lies within its approximate score plus or minus its error bound. Let L be the k-th largest lower
   * bound: k slots score at least L, so a slot whose upper bound is below L cannot make the top k.
   * One pass: the k-th largest lower bound so far only rises towards L, so a slot whose upper bound
   * is below it can be dropped on the spot, and the few kept are checked against L at the end.
   */
  private candidates(query: Float32Array, allowed: Uint8Array | 'all', k: number): Int32Array {
    const mask = allowed === 'all' ? null : allowed;
    // Zero beyond the dimension: the padding adds nothing to the dot products.
    const queryCodes = new Int16Array(this.stride);
    const quantisedQuery = quantise(query, queryCodes);
    const bound = errorBound(quantisedQuery);
    // No slot's error exceeds this, so a slot whose approximate score plus it falls short is
    // dropped without reading its own error terms.
    const anyError = bound(this.largestErrors, 0);
    const dots = this.dots(queryCodes);
    const queryScale = quantisedQuery.scale;
    const { count, slotEntry, slotScale, slotErrors } = this;
    const lowerBounds = new KthLargest(Math.min(k, count));
    const keptSlots: number[] = [];
    const keptUpper: number[] = [];
    let threshold = -Infinity;
    for (let slot = 0; slot < count; slot++) {
      if (mask !== null && mask[slotEntry[slot]] === 0) continue;
      const approximate = queryScale * slotScale[slot] * dots[slot];
      if (approximate + anyError < threshold) continue;
      const error = bound(slotErrors, slot * ERROR_TERMS);
      if (approximate + error < threshold) continue;
      keptSlots.push(slot);
      keptUpper.push(approximate + error);
      threshold = lowerBounds.offer(approximate - error);
    }
    return Int32Array.from(keptSlots.filter((_, n) => keptUpper[n] >= threshold));
  }

  /** The k best candidates by exact score, best first; equal scores keep slot order, as a full scan would. */
  private exactBest(query: Float32Array, candidates: Int32Array, k: number): { slot: number; score: number }[] {
    const scores = this.exactScores(query, candidates);
    const best: { slot: number; score: number }[] = [];
    candidates.forEach((slot, n) => {
      const score = scores[n];
      if (best.length === k && score <= best[k - 1].score) return;
      let at = best.length < k ? best.length : k - 1;
      best[at] = { slot, score };
      while (at > 0 && best[at - 1].score < score) {
        [best[at - 1], best[at]] = [best[at], best[at - 1]];
        at--;
      }
    });
    return best;
  }

  /** The candidates' dot products with the query, from their full-precision vectors in the file. */
  private exactScores(query: Float32Array, candidates: Int32Array): Float64Array {
    const dim = this.dimension;
    const scores = new Float64Array(candidates.length);
    let start = 0;
    while (start < candidates.length) {
      const first = candidates[start];
      let end = start + 1;
      while (end < candidates.length && candidates[end] - candidates[end - 1] <= READ_GAP && candidates[end] - first < READ_MAX_SLOTS) end++;
      const run = this.floatScratch((candidates[end - 1] - first + 1) * dim);
      this.floats.read(first, dim, run);
      for (let n = start; n < end; n++) scores[n] = floatDot(query, run, (candidates[n] - first) * dim);
      start = end;
    }
    return scores;
  }

  /** The int32 dot product of the query codes with every slot's codes, by slot. */
  private dots(queryCodes: Int16Array): Int32Array {
    const { count, stride } = this;
    if (!this.kernel) return scalarDots(this.codes(), queryCodes, count, this.dimension, stride);
    // Scratch space right after the stored codes: the query, then one result per slot.
    const queryAt = count * stride;
    const outAt = queryAt + 2 * stride;
    this.ensureBytes(outAt + count * 4);
    new Int16Array(this.memory.buffer, queryAt, stride).set(queryCodes);
    this.kernel(queryAt, 0, count, stride, outAt);
    return new Int32Array(this.memory.buffer, outAt, count);
  }

  /**
   * Quantises the slot's vector through `codes`, zero beyond the dimension: the slot's bytes may
   * hold an old search's scratch, and the padding must add nothing to the dot products.
   */
  private storeCodes(slot: number, vector: Float32Array, codes: Int16Array): void {
    const quantised = quantise(vector, codes);
    this.codes().set(codes, slot * this.stride);
    this.slotScale[slot] = quantised.scale;
    const terms = slot * ERROR_TERMS;
    this.slotErrors[terms + RESIDUAL_MAX] = quantised.residualMax;
    this.slotErrors[terms + RESIDUAL_NORM] = quantised.residualNorm;
    this.slotErrors[terms + DEQUANTISED_L1] = quantised.dequantisedL1;
    this.slotErrors[terms + DEQUANTISED_NORM] = quantised.dequantisedNorm;
    for (let term = 0; term < ERROR_TERMS; term++) {
      this.largestErrors[term] = Math.max(this.largestErrors[term], this.slotErrors[terms + term]);
    }
  }

  /** The stored codes; a fresh view whenever the memory has grown (growing detaches the old one). */
  private codes(): Int8Array {
    if (this.codeView.buffer !== this.memory.buffer) this.codeView = new Int8Array(this.memory.buffer);
    return this.codeView;
  }

  /** A reusable buffer of at least `length` floats. */
  private floatScratch(length: number): Float32Array {
    if (this.floatBuffer.length < length) this.floatBuffer = new Float32Array(Math.max(length, this.dimension * 16));
    return this.floatBuffer.subarray(0, length);
  }

  private ensureBytes(bytes: number): void {
    const missing = bytes - this.memory.buffer.byteLength;
    if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE));
  }

  private resetDimension(): void {
    this.dimension = 0;
    this.stride = 0;
    this.largestErrors = new Float32Array(ERROR_TERMS);
  }

  private checkDimension(vector: Float32Array): void {
    if (this.dimension === 0) {
      if (vector.length > MAX_DIMENSION) throw new Error(`Vectors of more than ${MAX_DIMENSION} dimensions are not supported.`);
      this.dimension = vector.length;
      this.stride = Math.ceil(vector.length / CODE_ALIGN) * CODE_ALIGN;
    }
    if (vector.length !== this.dimension) {
      throw new Error(`Vector of dimension ${vector.length} given to an index of dimension ${this.dimension}.`);
    }
  }

  private ensureCapacity(slots: number): void {
    // Codes start at byte 0, so growing the memory keeps them where they are. The memory never
    // shrinks, so it grows to what the slots need, not ahead of them.
    this.ensureBytes(slots * this.stride);
    if (slots <= this.capacity) return;
    const next = Math.max(slots, this.capacity * 2, 64);
    this.slotEntry = grown(this.slotEntry, next, this.count);
    this.slotChunk = grown(this.slotChunk, next, this.count);
    this.slotTextOffset = grown(this.slotTextOffset, next, this.count);
    this.slotTextLength = grown(this.slotTextLength, next, this.count);
    this.slotScale = grown(this.slotScale, next, this.count);
    this.slotErrors = grown(this.slotErrors, next * ERROR_TERMS, this.count * ERROR_TERMS);
    this.capacity = next;
  }

  /** Frees the resource's slots by moving the last slots into them, so the arrays and the file stay dense. */
  private removeSync(resourceType: ResourceType, resourceId: number): void {
    const key = resourceKey(resourceType, resourceId);
    const entryNo = this.entryByKey.get(key);
    if (entryNo === undefined) return;
    const entry = this.entries[entryNo] as ResourceEntry;
    const holes = [...entry.slots].sort((a, b) => b - a);
    for (const hole of holes) {
      const last = this.count - 1;
      this.texts.release(this.slotTextLength[hole]);
      if (hole !== last) this.moveSlot(last, hole);
      this.count = last;
    }
    if (this.texts.needsCompaction) this.texts.compact(this.slotTextOffset, this.slotTextLength, this.count);
    this.floats.truncate(this.count, this.dimension);
    const left = (this.chunksByModel.get(entry.model) ?? 0) - entry.slots.length;
    if (left > 0) this.chunksByModel.set(entry.model, left);
    else this.chunksByModel.delete(entry.model);
    this.entries[entryNo] = null;
    this.entryByKey.delete(key);
    this.freeEntries.push(entryNo);
  }

  private moveSlot(from: number, to: number): void {
    const { dimension, stride } = this;
    this.floats.move(from, to, dimension, this.floatScratch(dimension));
    this.codes().copyWithin(to * stride, from * stride, from * stride + stride);
    this.slotScale[to] = this.slotScale[from];
    this.slotErrors.copyWithin(to * ERROR_TERMS, from * ERROR_TERMS, (from + 1) * ERROR_TERMS);
    const entryNo = this.slotEntry[from];
    this.slotEntry[to] = entryNo;
    this.slotChunk[to] = this.slotChunk[from];
    this.slotTextOffset[to] = this.slotTextOffset[from];
    this.slotTextLength[to] = this.slotTextLength[from];
    const owner = this.entries[entryNo] as ResourceEntry;
    owner.slots[owner.slots.indexOf(from)] = to;
  }
}

/** What quantising a vector left: with the scale, enough to bound the error of a dot product with it. */
interface Quantised {
  scale: number;
  l1: number;
  norm: number;
  /** max |v_i - scale * code_i| and the Euclidean norm of those residuals. */
  residualMax: number;
  residualNorm: number;
  /** ||scale * codes||_1 and ||scale * codes||_2. */
  dequantisedL1: number;
  dequantisedNorm: number;
}

/**
 * Writes the int8 codes round(v_i / scale) to codes[i], with scale = max|v_i| / 127 taken as a
 * float32 so that the stored scale is exactly the one used, and measures the residuals the
 * rounding actually left rather than assuming half a step. (Codes go to an Int16Array whatever
 * they are stored as: one array type keeps this loop monomorphic, and so fast.)
 */
function quantise(vector: Float32Array, codes: Int16Array): Quantised {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]));
  const scale = Math.fround(max / CODE_MAX);
  const inverse = scale === 0 ? 0 : 1 / scale;
  let l1 = 0;
  let squares = 0;
  let residualMax = 0;
  let residualSquares = 0;
  let dequantisedL1 = 0;
  let dequantisedSquares = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i];
    const code = Math.max(-CODE_MAX, Math.min(CODE_MAX, Math.round(value * inverse)));
    codes[i] = code;
    // Exact in float64: a float32 scale times a code of 8 bits has at most 32 significant bits.
    const dequantised = scale * code;
    const residual = Math.abs(value - dequantised);
    l1 += Math.abs(value);
    squares += value * value;
    residualMax = Math.max(residualMax, residual);
    residualSquares += residual * residual;
    dequantisedL1 += Math.abs(dequantised);
    dequantisedSquares += dequantised * dequantised;
  }
  return {
    scale,
    l1,
    norm: Math.sqrt(squares),
    residualMax,
    residualNorm: Math.sqrt(residualSquares),
    dequantisedL1,
    dequantisedNorm: Math.sqrt(dequantisedSquares),
  };
}

/**
 * The bound on |q·v - s_q s_v (codes_q · codes_v)| for a slot, given the query's quantisation.
 * With v = v̂ + δ (v̂ = s_v codes_v) and q = q̂ + ε:
 *   q·v - q̂·v̂ = q·δ + ε·v̂,
 * and by Hölder's and the Cauchy-Schwarz inequalities
 *   |q·δ| <= min(||q||_1 max|δ_i|, ||q||_2 ||δ||_2),  |ε·v̂| <= min(max|ε_i| ||v̂||_1, ||ε||_2 ||v̂||_2).
 * The smaller of each pair depends on how peaked the vectors are, so both are kept.
 */
function errorBound(query: Quantised): (slotErrors: Float32Array, at: number) => number {
  const { l1, norm, residualMax, residualNorm } = query;
  return (slotErrors, at) =>
    (Math.min(l1 * slotErrors[at + RESIDUAL_MAX], norm * slotErrors[at + RESIDUAL_NORM]) +
      Math.min(residualMax * slotErrors[at + DEQUANTISED_L1], residualNorm * slotErrors[at + DEQUANTISED_NORM])) *
      BOUND_RELATIVE_SLACK +
    BOUND_ABSOLUTE_SLACK;
}

/** The k-th largest of the numbers offered, with a min-heap of the k largest; -Infinity until k were offered. */
class KthLargest {
  private readonly heap: Float64Array;
  private held = 0;

  constructor(private readonly k: number) {
    this.heap = new Float64Array(k);
  }

  /** Takes a number in; returns the k-th largest so far. */
  offer(value: number): number {
    const heap = this.heap;
    if (this.held < this.k) {
      let at = this.held++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent] <= value) break;
        heap[at] = heap[parent];
        at = parent;
      }
      heap[at] = value;
      return this.kth();
    }
    if (value <= heap[0]) return heap[0];
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.k) break;
      const child = left + 1 < this.k && heap[left + 1] < heap[left] ? left + 1 : left;
      if (heap[child] >= value) break;
      heap[at] = heap[child];
      at = child;
    }
    heap[at] = value;
    return heap[0];
  }

  kth(): number {
    return this.held < this.k || this.k === 0 ? -Infinity : this.heap[0];
  }
}

/** Dot products of the query codes with every slot's codes, in JavaScript: exact, integers stay below 2^53. */
function scalarDots(codes: Int8Array, queryCodes: Int16Array, count: number, dim: number, stride: number): Int32Array {
  const out = new Int32Array(count);
  for (let slot = 0; slot < count; slot++) {
    const offset = slot * stride;
    let dot0 = 0;
    let dot1 = 0;
    let i = 0;
    for (; i + 1 < dim; i += 2) {
      dot0 += codes[offset + i] * queryCodes[i];
      dot1 += codes[offset + i + 1] * queryCodes[i + 1];
    }
    if (i < dim) dot0 += codes[offset + i] * queryCodes[i];
    out[slot] = dot0 + dot1;
  }
  return out;
}

/** The float64 dot product of the query with the vector at `offset` of `vectors`. */
function floatDot(query: Float32Array, vectors: Float32Array, offset: number): number {
  const dim = query.length;
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
  return dot0 + dot1 + dot2 + dot3;
}

function grown<T extends Int32Array | Float32Array | Float64Array>(array: T, length: number, keep: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array.subarray(0, keep));
  return next;
}

function normaliseInto(vector: Float32Array, into: Float32Array): void {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  const inverse = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < vector.length; i++) into[i] = vector[i] * inverse;
}

function normalised(vector: Float32Array): Float32Array {
  const out = new Float32Array(vector.length);
  normaliseInto(vector, out);
  return out;
}
