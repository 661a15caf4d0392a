import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { partialUploadName, TMP_FOLDER } from './partial-uploads.js';
import {
  STORED_NAME,
  type ByteRange,
  type FileStorage,
  type PendingFile,
  type StoredFileEntry,
  type StoredFileInfo,
} from './port.js';
import { errorField } from '../errors.js';

/** file-type needs at most this many leading bytes to recognise a format. */
const HEAD_BYTES = 4100;

function checkedName(storedName: string): string {
  if (!STORED_NAME.test(storedName)) throw new Error('Invalid stored file name.');
  return storedName;
}

/** Counts, hashes and keeps the head of the bytes passing through, so nothing reads the file twice. */
class Measure extends Transform {
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

/**
 * Files on the local disk under `root` (DATA_DIR/files): temporary uploads in `tmp/`, stored
 * files in `<area>/`. A file moves from one to the other by a rename, so a reader never sees
 * half a file.
 */
export class LocalFileStorage implements FileStorage {
  private readonly tmpDir: string;
  private readonly storeDir: string;

  constructor(root: string, area: string) {
    this.tmpDir = join(root, TMP_FOLDER);
    this.storeDir = join(root, area);
  }

  private pathOf(storedName: string): string {
    return join(this.storeDir, checkedName(storedName));
  }

  async receive(source: Readable & { truncated?: boolean }, extension: string): Promise<PendingFile> {
    const storedName = checkedName(extension ? `${randomUUID()}.${extension}` : randomUUID());
    await mkdir(this.tmpDir, { recursive: true });
    await mkdir(this.storeDir, { recursive: true });
    const tempPath = join(this.tmpDir, partialUploadName());
    const discard = () => rm(tempPath, { force: true });
    const measure = new Measure();
    const sink = createWriteStream(tempPath, { flags: 'wx' });
    try {
      await pipeline(source, measure, sink);
    } catch (error) {
      // A write stream destroyed before its file is open still opens (creates) it, then closes
      // it: the temporary file is removed only after that, or it would be left behind.
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await discard();
      throw error;
    }
    const finalPath = this.pathOf(storedName);
    return {
      storedName,
      size: measure.size,
      sha256: measure.hash.digest('hex'),
      head: measure.head(),
      truncated: source.truncated === true,
      commit: () => rename(tempPath, finalPath),
      discard,
    };
  }

  async stat(storedName: string): Promise<StoredFileInfo | null> {
    try {
      const info = await stat(this.pathOf(storedName));
      return info.isFile() ? { size: info.size } : null;
    } catch {
      return null;
    }
  }

  async localPath(storedName: string): Promise<string | null> {
    return (await this.stat(storedName)) ? this.pathOf(storedName) : null;
  }

  openRead(storedName: string, range?: ByteRange): Readable {
    return createReadStream(this.pathOf(storedName), range ? { start: range.start, end: range.end } : {});
  }

  async remove(storedName: string): Promise<void> {
    await rm(this.pathOf(storedName), { force: true });
  }

  async list(): Promise<StoredFileEntry[]> {
    let entries;
    try {
      entries = await readdir(this.storeDir, { withFileTypes: true });
    } catch (error) {
      if (errorField(error, 'code') === 'ENOENT') return [];
      throw error;
    }
    const listed: StoredFileEntry[] = [];
    for (const entry of entries) {
      // Anything else in the folder was not written by this storage: never offered for removal.
      if (!entry.isFile() || !STORED_NAME.test(entry.name)) continue;
      const info = await stat(join(this.storeDir, entry.name)).catch(() => null);
      if (info) listed.push({ storedName: entry.name, modifiedAt: info.mtimeMs });
    }
    return listed;
  }
}
