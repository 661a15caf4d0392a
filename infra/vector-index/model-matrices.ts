import type { PreparedStatements } from '../prepared-statements.js';
import { QuantizedMatrix } from './quantized-matrix.js';

/** A chunk as it was written or deleted, for keeping the matrices in step. */
export interface WrittenChunk {
  id: number;
  model: string;
  vector?: Float32Array;
}

/** Rows read from SQLite at a time when a matrix is read in the background: a few ms each. */
const BATCH_ROWS = 2000;

/** A matrix being read in the background, batch by batch in id order. */
interface Reading {
  matrix: QuantizedMatrix;
  afterId: number;
  version: number;
  done: Promise<void>;
  finish: () => void;
}

/**
 * The quantized matrices of the models searched, kept in step with the SQLite file they are
 * read from. A model's matrix is read from its first search on, then updated by this
 * connection's writes. Read at once, 100,000 chunks take 1 to 2 s; with `inBackground`, the
 * reading goes batch by batch between other work, and until it ends `get` returns nothing (the
 * search scans). Another connection's commit (the reindex CLI on the same file) is seen by
 * `PRAGMA data_version`, which changes for other connections' commits only: the matrices are
 * then dropped and read again. While that connection keeps writing (a reindex writes one
 * resource at a time: a change seen at two checks in a row, or within `reloadPauseMs` of the
 * last reading) `get` returns nothing rather than read again at every search, until a check
 * finds no change `reloadPauseMs` after the last one seen.
 */
export class ModelMatrices {
  private readonly matrices = new Map<string, QuantizedMatrix>();
  private readonly readings = new Map<string, Reading>();
  private dataVersion: number;
  private changedAtLastCheck = false;
  private lastChangeSeen = -Infinity;
  private lastReading = -Infinity;
  private writerBusy = false;

  constructor(
    private readonly statements: PreparedStatements,
    private readonly reloadPauseMs: number,
    private readonly inBackground: boolean,
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
      this.clear();
      if (this.reloadPauseMs > 0 && (this.changedAtLastCheck || now - this.lastReading < this.reloadPauseMs))
        this.writerBusy = true;
      this.lastChangeSeen = now;
    } else if (now - this.lastChangeSeen >= this.reloadPauseMs) {
      this.writerBusy = false;
    }
    this.changedAtLastCheck = changed;
    if (this.writerBusy) return undefined;
    const matrix = this.matrices.get(model);
    if (matrix && matrix.dimension === dimension) return matrix;
    const reading = this.readings.get(model);
    if (reading && reading.matrix.dimension === dimension) return undefined;
    this.startReading(model, dimension);
    return this.inBackground ? undefined : this.matrices.get(model);
  }

  /** True while the model's matrix of this dimension is being read in the background. */
  reading(model: string, dimension: number): boolean {
    return this.readings.get(model)?.matrix.dimension === dimension;
  }

  /** Resolves once the model's matrix is held, or its reading given up; starts reading it if need be. */
  async whenRead(model: string, dimension: number): Promise<void> {
    if (this.get(model, dimension)) return;
    await this.readings.get(model)?.done;
  }

  /**
   * Applies this connection's committed writes to the matrices held and to those being read (a
   * row already read is updated here; one not read yet will be read as it now is).
   */
  written(deleted: WrittenChunk[], inserted: WrittenChunk[]): void {
    const matrixOf = (model: string) => this.matrices.get(model) ?? this.readings.get(model)?.matrix;
    for (const { id, model } of deleted) matrixOf(model)?.delete(id);
    for (const { id, model, vector } of inserted) {
      const matrix = matrixOf(model);
      if (!matrix || !vector) continue;
      // The index took another dimension (its last chunk was gone): read the matrix again when needed.
      if (matrix.dimension !== vector.length) this.drop(model);
      else matrix.set(id, vector);
    }
  }

  /** Forgets every matrix, and stops the readings under way. */
  clear(): void {
    for (const model of [...this.matrices.keys(), ...this.readings.keys()]) this.drop(model);
  }

  private drop(model: string): void {
    this.matrices.delete(model);
    const reading = this.readings.get(model);
    this.readings.delete(model);
    reading?.finish();
  }

  private startReading(model: string, dimension: number): void {
    const { n } = this.statements.get('select count(*) as n from vector_chunks where model = ?').get(model) as {
      n: number;
    };
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const reading: Reading = {
      matrix: new QuantizedMatrix(dimension, n),
      afterId: Number.MIN_SAFE_INTEGER,
      version: this.dataVersion,
      done,
      finish,
    };
    this.readings.set(model, reading);
    // True when the reading is over: read to the end, or given up.
    const step = (): boolean => {
      if (this.readings.get(model) !== reading) return true;
      // Another connection wrote: the next search starts again (or waits for that writer).
      if (this.readDataVersion() !== reading.version) {
        this.drop(model);
        return true;
      }
      if (!this.readBatch(model, reading)) return false;
      this.readings.delete(model);
      this.matrices.set(model, reading.matrix);
      this.lastReading = Date.now();
      reading.finish();
      return true;
    };
    if (this.inBackground) {
      const next = () => {
        if (!step()) setImmediate(next);
      };
      setImmediate(next);
    } else {
      while (!step());
    }
  }

  /** Reads the next rows of a matrix; true when none is left. */
  private readBatch(model: string, reading: Reading): boolean {
    // As text: a blob would be a malloc'd Buffer per row (QuantizedMatrix.setFromHex).
    const rows = this.statements
      .get('select id, hex(vector) from vector_chunks where model = ? and id > ? order by id limit ?')
      .raw(true)
      .all(model, reading.afterId, BATCH_ROWS) as [number, string][];
    for (const [id, hex] of rows) {
      reading.matrix.setFromHex(id, hex);
      reading.afterId = id;
    }
    return rows.length < BATCH_ROWS;
  }

  private readDataVersion(): number {
    return (this.statements.get('pragma data_version').get() as { data_version: number }).data_version;
  }
}
