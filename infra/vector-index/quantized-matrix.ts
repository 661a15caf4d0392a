import { exactSearch, MetricKind, type Matches } from 'usearch';

const INITIAL_CAPACITY = 1024;

/**
 * One model's vectors as int8 codes in one contiguous matrix, each row the code of a chunk
 * known by its SQLite id, for a brute-force first pass by usearch's `exactSearch` (SIMD cosine
 * over every row). Each vector is scaled so that its largest component becomes +-127: cosine
 * ignores a vector's length, and a per-vector scale keeps more of each vector's precision than
 * one scale for all. The codes only choose candidates; the distances returned are recomputed
 * exactly from the float vectors in SQLite.
 */
export class QuantizedMatrix {
  private codes: Int8Array;
  private ids: Float64Array;
  private readonly rowOfId = new Map<number, number>();
  private count = 0;
  private readonly scratch: Float32Array;
  private readonly scratchBytes: Buffer;

  constructor(
    readonly dimension: number,
    capacity = INITIAL_CAPACITY,
  ) {
    this.codes = new Int8Array(Math.max(1, capacity) * dimension);
    this.ids = new Float64Array(Math.max(1, capacity));
    this.scratch = new Float32Array(dimension);
    this.scratchBytes = Buffer.from(this.scratch.buffer, this.scratch.byteOffset, this.scratch.byteLength);
  }

  get rows(): number {
    return this.count;
  }

  /** Adds (or overwrites) the code of a chunk's vector, given as float32 values. */
  set(id: number, vector: Float32Array): void {
    if (vector.length !== this.dimension)
      throw new Error(`Vector of dimension ${vector.length} given to a matrix of dimension ${this.dimension}.`);
    let row = this.rowOfId.get(id);
    if (row === undefined) {
      if (this.count === this.ids.length) this.grow();
      row = this.count++;
      this.rowOfId.set(id, row);
      this.ids[row] = id;
    }
    quantizeInto(vector, this.codes, row * this.dimension);
  }

  /**
   * Adds the code of a vector given as the hexadecimal text of its float32 bytes, as SQLite's
   * `hex(vector)` returns it; false (and nothing set) when it is not a vector of this dimension.
   * Text rather than the blob: better-sqlite3 copies each blob into a Buffer of its own, allocated
   * by malloc outside V8's heap, and 100,000 of them read at once left the process's malloc heap
   * about 40 MB larger for good (docs/perf-history.md, memory round 1); a string lives in V8's young
   * generation and goes with the next scavenge. It is decoded into one scratch array.
   */
  setFromHex(id: number, hex: string): boolean {
    if (hex.length !== this.scratchBytes.byteLength * 2) return false;
    if (this.scratchBytes.write(hex, 0, 'hex') !== this.scratchBytes.byteLength) return false;
    this.set(id, this.scratch);
    return true;
  }

  /** Removes a chunk's row by moving the last row into its place. */
  delete(id: number): void {
    const row = this.rowOfId.get(id);
    if (row === undefined) return;
    this.rowOfId.delete(id);
    const last = --this.count;
    if (row !== last) {
      const lastId = this.ids[last];
      this.codes.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.ids[row] = lastId;
      this.rowOfId.set(lastId, row);
    }
  }

  /** The ids of the `count` rows nearest to the query by the codes' cosine, nearest first, with those distances. */
  nearest(query: Float32Array, count: number): { ids: number[]; distances: Float32Array } {
    const wanted = Math.min(count, this.count);
    if (wanted <= 0) return { ids: [], distances: new Float32Array(0) };
    const code = new Int8Array(this.dimension);
    quantizeInto(query, code, 0);
    // The binding reads from the start of the typed array's buffer: a view from row 0 is safe.
    // One thread: the server handles requests concurrently on a small machine, and a second
    // thread was not faster under load (docs/perf-history.md).
    const { keys, distances } = exactSearch(
      this.codes.subarray(0, this.count * this.dimension),
      code,
      this.dimension,
      wanted,
      MetricKind.Cos,
      1,
    ) as Matches;
    const ids: number[] = new Array<number>(keys.length);
    for (let i = 0; i < keys.length; i++) ids[i] = this.ids[Number(keys[i])];
    return { ids, distances };
  }

  private grow(): void {
    const capacity = this.ids.length * 2;
    const codes = new Int8Array(capacity * this.dimension);
    codes.set(this.codes);
    const ids = new Float64Array(capacity);
    ids.set(this.ids);
    this.codes = codes;
    this.ids = ids;
  }
}

/** Writes the int8 code of a vector at `offset`, its largest component scaled to +-127. */
export function quantizeInto(vector: Float32Array, codes: Int8Array, offset: number): void {
  let largest = 0;
  for (let i = 0; i < vector.length; i++) {
    const magnitude = Math.abs(vector[i]);
    if (magnitude > largest) largest = magnitude;
  }
  // A zero vector (or one of NaN) stays all zeros: usearch then gives it distance 1, as SQL does.
  const scale = largest > 0 && Number.isFinite(largest) ? 127 / largest : 0;
  for (let i = 0; i < vector.length; i++) codes[offset + i] = Math.round(vector[i] * scale);
}
