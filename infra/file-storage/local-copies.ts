import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { partialUploadName, removeLeftoverUploads, TMP_FOLDER, type LeftoverOptions } from './partial-uploads.js';
import { checkedName } from './port.js';

/**
 * Local copies of files kept elsewhere, for the libraries that read a file at random offsets
 * (libvips' tiles): `root/<area>/<stored name>` (DATA_DIR/cache/files). Stored files never change
 * once committed, so a copy is good until its file is removed; each is written in `root/tmp/`
 * and renamed into place, so a reader never finds half a copy. A cache: never backed up, and
 * emptied at will.
 */
export class LocalCopies {
  /** Copies being written by this process, so two readers of one file make it once. */
  private readonly making = new Map<string, Promise<string>>();

  constructor(private readonly root: string) {}

  private pathOf(area: string, storedName: string): string {
    return join(this.root, area, checkedName(storedName));
  }

  /** The copy of a stored file, made from `open` when there is none yet. */
  async copyOf(area: string, storedName: string, open: () => Readable): Promise<string> {
    const path = this.pathOf(area, storedName);
    const info = await stat(path).catch(() => null);
    if (info?.isFile()) return path;
    let made = this.making.get(path);
    if (!made) {
      made = this.make(path, area, open).finally(() => this.making.delete(path));
      this.making.set(path, made);
    }
    return made;
  }

  private async make(path: string, area: string, open: () => Readable): Promise<string> {
    const tmpDir = join(this.root, TMP_FOLDER);
    await mkdir(tmpDir, { recursive: true });
    await mkdir(join(this.root, area), { recursive: true });
    const partial = join(tmpDir, partialUploadName());
    const sink = createWriteStream(partial, { flags: 'wx' });
    try {
      await pipeline(open(), sink);
      await rename(partial, path);
    } catch (error) {
      // As in LocalFileStorage.receive: a sink destroyed before its file opened still creates it.
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await rm(partial, { force: true });
      throw error;
    }
    return path;
  }

  /** Drops the copy of a file that is no more (a missing copy is not an error). */
  async drop(area: string, storedName: string): Promise<void> {
    await rm(this.pathOf(area, storedName), { force: true });
  }

  /** Partial copies a crash left (partial-uploads.ts): answers their names. */
  removeLeftovers(options: LeftoverOptions): Promise<string[]> {
    return removeLeftoverUploads(this.root, options);
  }
}
