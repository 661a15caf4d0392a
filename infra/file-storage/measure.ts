import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/** file-type needs at most this many leading bytes to recognise a format. */
export const HEAD_BYTES = 4100;

/** Counts, hashes and keeps the head of the bytes passing through, so nothing reads the file twice. */
export class Measure extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      this.headChunks.push(part);
      this.headLength += part.length;
    }
    done(null, chunk);
  }

  head(): Buffer {
    return Buffer.concat(this.headChunks);
  }
}
