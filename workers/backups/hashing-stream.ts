import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** Passes bytes through unchanged while counting them and computing their SHA-256. */
export class HashingStream extends Transform {
  private readonly hash: Hash = createHash('sha256');
  bytes = 0;
  private digest: string | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }

  /** The hex digest; only valid once every byte went through. */
  hex(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }
}
