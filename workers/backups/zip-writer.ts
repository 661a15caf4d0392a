import archiver from 'archiver';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFLATE_LEVEL } from './compression.js';
import { HashingStream } from './hashing-stream.js';
import { useNativeCrc32 } from './native-crc32.js';

useNativeCrc32();

export interface WrittenEntry {
  path: string;
  size: number;
  sha256: string;
}

/**
 * Streams a zip archive into a file, one entry at a time (so only one source file is open),
 * and knows each entry's size and SHA-256 and the archive's own, without holding any file
 * in memory.
 */
export class ZipWriter {
  private readonly archive = archiver('zip', { zlib: { level: DEFLATE_LEVEL, chunkSize: 256 * 1024 } });
  private readonly output = new HashingStream();
  private readonly done: Promise<void>;
  private failure: Error | null = null;
  /** Fails the entry being added when the output fails (one listener for the whole archive). */
  private failCurrentEntry: ((error: Error) => void) | null = null;

  constructor(
    file: string,
    private readonly date: Date,
  ) {
    this.archive.on('warning', (error) => {
      this.failure ??= error;
    });
    this.done = pipeline(this.archive, this.output, createWriteStream(file, { flags: 'wx' }));
    this.done.catch((error: Error) => {
      this.failure ??= error;
      this.failCurrentEntry?.(error);
    });
  }

  /** Adds one entry from a stream (or bytes) and resolves once it is fully in the archive. */
  async add(
    name: string,
    source: Readable | Buffer | string,
    options: { store?: boolean } = {},
  ): Promise<WrittenEntry> {
    if (this.failure) throw this.failure;
    const input = typeof source === 'string' || Buffer.isBuffer(source) ? Readable.from([Buffer.from(source)]) : source;
    const through = new HashingStream();
    await new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        this.archive.off('entry', onEntry);
        this.archive.off('error', onError);
        this.failCurrentEntry = null;
      };
      const onEntry = () => {
        cleanup();
        resolve();
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      this.archive.on('entry', onEntry);
      this.archive.on('error', onError);
      pipeline(input, through).catch((error: Error) => {
        cleanup();
        reject(error);
      });
      this.failCurrentEntry = onError;
      this.archive.append(through, { name, store: options.store ?? false, date: this.date });
    });
    if (this.failure) throw this.failure;
    return { path: name, size: through.bytes, sha256: through.hex() };
  }

  /** Writes the central directory and closes the file; returns the archive's size and SHA-256. */
  async finish(): Promise<{ size: number; sha256: string }> {
    // The output's failure (disk full, folder gone) must not leave finalize waiting forever.
    await Promise.all([this.archive.finalize(), this.done]);
    if (this.failure) throw this.failure;
    return { size: this.output.bytes, sha256: this.output.hex() };
  }

  /** Stops writing after a failure; the caller removes the partial file. */
  async abort(): Promise<void> {
    this.archive.abort();
    // abort() alone waits for the entry in progress, whose source may never end after an error.
    this.archive.destroy();
    await this.done.catch(() => undefined);
  }
}
