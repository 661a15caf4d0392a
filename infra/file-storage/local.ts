import { randomUUID } from 'node:crypto';
import { constants, createReadStream, createWriteStream, existsSync } from 'node:fs';
import { access, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Measure } from './measure.js';
import { partialUploadName, removeLeftoverUploads, TMP_FOLDER, type LeftoverOptions } from './partial-uploads.js';
import {
  checkedName,
  STORED_NAME,
  type ByteRange,
  type FileArea,
  type FileAreas,
  type FileStorage,
  type PendingFile,
  type StoredFileEntry,
  type StoredFileInfo,
} from './port.js';
import { errorField } from '../errors.js';

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

  receive(source: Readable & { truncated?: boolean }, extension: string): Promise<PendingFile> {
    return this.receiveAs(checkedName(extension ? `${randomUUID()}.${extension}` : randomUUID()), source);
  }

  /** receive, under a given name (LocalFileAreas.putFile). */
  async receiveAs(storedName: string, source: Readable & { truncated?: boolean }): Promise<PendingFile> {
    const finalPath = this.pathOf(storedName);
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

/** The embedded adapter's areas: folders of `root` (DATA_DIR/files) sharing its `tmp/`. */
export class LocalFileAreas implements FileAreas {
  readonly kind = 'local';
  private readonly areas = new Map<FileArea, LocalFileStorage>();

  /** `dataDir`: what /health checks while `root` is not made yet. */
  constructor(
    readonly root: string,
    private readonly dataDir: string,
  ) {}

  area(area: FileArea): LocalFileStorage {
    let storage = this.areas.get(area);
    if (!storage) {
      storage = new LocalFileStorage(this.root, area);
      this.areas.set(area, storage);
    }
    return storage;
  }

  removeLeftoverUploads(options: LeftoverOptions): Promise<string[]> {
    return removeLeftoverUploads(this.root, options);
  }

  async putFile(area: FileArea, storedName: string, source: Readable): Promise<void> {
    const storage = this.area(area);
    if (await storage.stat(checkedName(storedName))) throw new Error(`${area}/${storedName} is stored already.`);
    const pending = await storage.receiveAs(storedName, source);
    await pending.commit();
  }

  check(): Promise<void> {
    return access(existsSync(this.root) ? this.root : this.dataDir, constants.R_OK | constants.W_OK);
  }

  async close(): Promise<void> {}
}
