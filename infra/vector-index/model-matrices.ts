import type { PreparedStatements } from '../prepared-statements.js';
import { QuantizedMatrix } from './quantized-matrix.js';

/** A chunk as it was written or deleted, for keeping the matrices in step. */
export interface WrittenChunk {
  id: number;
  model: string;
  vector?: Float32Array;
}

/**
 * The quantized matrices of the models searched, kept in step with the SQLite file they are
 * read from. A model's matrix is read at its first search, then updated by this connection's
 * writes. Another connection's commit (the reindex CLI on the same file) is seen by
 * `PRAGMA data_version`, which changes for other connections' commits only: the matrices are
 * then dropped and read again. Reading one takes about a second at 100,000 chunks, longer than
 * a scan, so while that connection keeps writing (a reindex writes one resource at a time: a
 * change seen at two checks in a row, or within `reloadPauseMs` of the last reading) `get`
 * returns nothing, and the search scans in SQL, until a check finds no change `reloadPauseMs`
 * after the last one seen.
 */
export class ModelMatrices {
  private readonly matrices = new Map<string, QuantizedMatrix>();
  private dataVersion: number;
  private changedAtLastCheck = false;
  private lastChangeSeen = -Infinity;
  private lastReading = -Infinity;
  private writerBusy = false;

  constructor(
    private readonly statements: PreparedStatements,
    private readonly reloadPauseMs: number,
  ) {
    this.dataVersion = this.readDataVersion();
  }

  /** The model's matrix, read from the file if not held; undefined while another connection keeps writing. */
  get(model: string, dimension: number): QuantizedMatrix | undefined {
    const now = Date.now();
    const version = this.readDataVersion();
    const changed = version !== this.dataVersion;
    if (changed) {
      this.dataVersion = version;
      this.matrices.clear();
      if (this.reloadPauseMs > 0 && (this.changedAtLastCheck || now - this.lastReading < this.reloadPauseMs)) this.writerBusy = true;
      this.lastChangeSeen = now;
    } else if (now - this.lastChangeSeen >= this.reloadPauseMs) {
      this.writerBusy = false;
    }
    this.changedAtLastCheck = changed;
    if (this.writerBusy) return undefined;
    let matrix = this.matrices.get(model);
    if (matrix && matrix.dimension === dimension) return matrix;
    matrix = this.read(model, dimension);
    this.matrices.set(model, matrix);
    this.lastReading = Date.now();
    return matrix;
  }

  /** Applies this connection's committed writes to the matrices held. */
  written(deleted: WrittenChunk[], inserted: WrittenChunk[]): void {
    for (const { id, model } of deleted) this.matrices.get(model)?.delete(id);
    for (const { id, model, vector } of inserted) {
      const matrix = this.matrices.get(model);
      if (!matrix || !vector) continue;
      // The index took another dimension (its last chunk was gone): read the matrix again when needed.
      if (matrix.dimension !== vector.length) this.matrices.delete(model);
      else matrix.set(id, vector);
    }
  }

  clear(): void {
    this.matrices.clear();
  }

  private read(model: string, dimension: number): QuantizedMatrix {
    const { n } = this.statements.get('select count(*) as n from vector_chunks where model = ?').get(model) as { n: number };
    const matrix = new QuantizedMatrix(dimension, n);
    const rows = this.statements.get('select id, vector from vector_chunks where model = ?').raw(true).iterate(model) as IterableIterator<[number, Buffer]>;
    for (const [id, bytes] of rows) {
      if (bytes.byteLength === dimension * 4) matrix.setFromBytes(id, bytes);
    }
    return matrix;
  }

  private readDataVersion(): number {
    return (this.statements.get('pragma data_version').get() as { data_version: number }).data_version;
  }
}
