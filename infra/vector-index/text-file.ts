import { ScratchFile } from '../scratch-file.js';

/** Compaction waits until the dead bytes are this many, and more than the live ones. */
const COMPACT_AFTER_BYTES = 32 * 1024 * 1024;

/**
 * Chunk texts in a file, appended as UTF-8, each found by its offset and length (kept by the
 * caller per slot): a search reads only the texts of its hits, so the texts need not stay in
 * the process. Replaced and removed texts leave dead bytes behind; once they outweigh the live
 * ones the caller rewrites the live texts into a fresh file (`compact`).
 */
export class ChunkTextFile {
  private end = 0;
  private dead = 0;

  private constructor(
    private file: ScratchFile,
    private readonly directory: string | undefined,
  ) {}

  static create(directory?: string): ChunkTextFile {
    return new ChunkTextFile(ScratchFile.create('texts', directory), directory);
  }

  /** Appends the text; answers where it went. */
  append(text: string): { offset: number; length: number } {
    const bytes = Buffer.from(text, 'utf8');
    const offset = this.end;
    this.file.writeAt(bytes, offset);
    this.end += bytes.length;
    return { offset, length: bytes.length };
  }

  read(offset: number, length: number): string {
    const bytes = Buffer.allocUnsafe(length);
    this.file.readAt(bytes, offset);
    return bytes.toString('utf8');
  }

  /** A text no slot refers to any more. */
  release(length: number): void {
    this.dead += length;
  }

  get needsCompaction(): boolean {
    return this.dead >= COMPACT_AFTER_BYTES && this.dead > this.end - this.dead;
  }

  /**
   * Rewrites the live texts, given as (offset, length) pairs in `offsets` and `lengths`, into a
   * fresh file and updates their offsets in place.
   */
  compact(offsets: Float64Array, lengths: Int32Array, count: number): void {
    const fresh = ScratchFile.create('texts', this.directory);
    const moved = new Float64Array(count);
    let end = 0;
    try {
      for (let slot = 0; slot < count; slot++) {
        const bytes = Buffer.allocUnsafe(lengths[slot]);
        this.file.readAt(bytes, offsets[slot]);
        fresh.writeAt(bytes, end);
        moved[slot] = end;
        end += bytes.length;
      }
    } catch (error) {
      // Nothing changed: the old file and offsets still hold.
      fresh.close();
      throw error;
    }
    offsets.set(moved);
    this.file.close();
    this.file = fresh;
    this.end = end;
    this.dead = 0;
  }

  clear(): void {
    this.file.truncate(0);
    this.end = 0;
    this.dead = 0;
  }

  close(): void {
    this.file.close();
  }
}
