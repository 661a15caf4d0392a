import { createReadStream } from 'node:fs';
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ByteRange } from '../file-storage/port.js';
import type { BackupArchives, StagedArchive, StoredArchive } from './port.js';
import { checkedArchiveName, isArchiveName } from './port.js';
import { archiveFileFor, backupsDir, checksumFileFor, localFilesOf } from './paths.js';

/**
 * Archives in DATA_DIR/backups of this host, each with `ARCHIVE.zip.sha256` beside it: the
 * staging file the job wrote is the archive itself, so `put` only checks it.
 */
export class LocalBackupArchives implements BackupArchives {
  readonly kind = 'local';

  constructor(private readonly dataDir: string) {}

  private pathOf(filename: string): string {
    return archiveFileFor(this.dataDir, checkedArchiveName(filename));
  }

  stagingFile(filename: string): string {
    return this.pathOf(filename);
  }

  location(filename: string): string {
    return archiveFileFor(this.dataDir, filename);
  }

  async put(filename: string, staged: StagedArchive): Promise<void> {
    const path = this.pathOf(filename);
    if (staged.path !== path) {
      await rename(staged.path, path);
      await rm(checksumFileFor(staged.path), { force: true });
      await writeFile(checksumFileFor(path), `${staged.sha256}  ${basename(path)}\n`);
    }
    const info = await stat(path);
    if (info.size !== staged.size)
      throw new Error(`The archive ${filename} has ${info.size} bytes, not the ${staged.size} written.`);
  }

  async stat(filename: string): Promise<{ size: number } | null> {
    if (!isArchiveName(filename)) return null;
    const info = await stat(this.pathOf(filename)).catch(() => null);
    return info?.isFile() ? { size: info.size } : null;
  }

  openRead(filename: string, range?: ByteRange): Readable {
    return createReadStream(this.pathOf(filename), {
      highWaterMark: 1024 * 1024,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async remove(filename: string): Promise<void> {
    for (const path of localFilesOf(this.pathOf(filename))) await rm(path, { force: true });
  }

  async list(): Promise<StoredArchive[]> {
    const dir = backupsDir(this.dataDir);
    const names = await readdir(dir).catch(() => []);
    const listed: StoredArchive[] = [];
    for (const filename of names.sort()) {
      if (!isArchiveName(filename)) continue;
      const info = await stat(join(dir, filename)).catch(() => null);
      if (info?.isFile()) listed.push({ filename, size: info.size, modifiedAt: info.mtimeMs });
    }
    return listed;
  }

  /** Nothing: a partial archive here belongs to a record, whose interrupted job's cleanup removes it (workers/backups/interrupted.ts). */
  removeLeftovers(): Promise<number> {
    return Promise.resolve(0);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
