import { ScratchFile } from '../scratch-file.js';

const FLOAT_BYTES = 4;

/**
 * Full-precision vectors in a file, slot s at byte s * dim * 4, read back with positioned reads.
 * Under memory pressure the operating system may evict its pages, and reads then come from the
 * disk.
 */
export class FloatVectorFile {
  private constructor(private readonly file: ScratchFile) {}

  /** A new, empty file in `directory`, or in a temporary directory of its own when none is given. */
  static create(directory?: string): FloatVectorFile {
    return new FloatVectorFile(ScratchFile.create('vectors', directory));
  }

  /** Writes consecutive vectors of `dim` floats, the first at `slot`. */
  write(slot: number, dim: number, vectors: Float32Array): void {
    this.file.writeAt(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength), slot * dim * FLOAT_BYTES);
  }

  /** Fills `into` with consecutive vectors of `dim` floats, the first at `slot`. */
  read(slot: number, dim: number, into: Float32Array): void {
    this.file.readAt(new Uint8Array(into.buffer, into.byteOffset, into.byteLength), slot * dim * FLOAT_BYTES);
  }

  /** Copies the vector at slot `from` over the one at slot `to`, reusing `scratch` (`dim` floats). */
  move(from: number, to: number, dim: number, scratch: Float32Array): void {
    this.read(from, dim, scratch);
    this.write(to, dim, scratch);
  }

  /** Keeps the first `slots` vectors. */
  truncate(slots: number, dim: number): void {
    this.file.truncate(slots * dim * FLOAT_BYTES);
  }

  close(): void {
    this.file.close();
  }
}
