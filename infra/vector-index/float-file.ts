import { randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FLOAT_BYTES = 4;
/** `vectors-<pid>-<uuid>.f32`: the process id tells a crashed run's leftover from a live process's file. */
const FILE_NAME = /^vectors-(\d+)-[0-9a-f-]+\.f32$/;
/** Files this process has open, by path. */
const openFiles = new Map<string, FloatVectorFile>();
let deletesAtExit = false;

/**
 * Full-precision vectors in a file, slot s at byte s * dim * 4, read back with positioned reads.
 * The bytes live in the page cache, not in the process: under memory pressure the operating
 * system may evict them, and reads then come from the disk. Nothing here needs to survive a
 * restart (the embedded index is rebuilt at start), so there is no fsync and the file is deleted
 * on close.
 */
export class FloatVectorFile {
  private fd: number | null;

  private constructor(
    readonly path: string,
    /** The directory made for this file alone, deleted with it. */
    private readonly ownDirectory: string | null,
  ) {
    this.fd = openSync(path, 'w+');
    openFiles.set(path, this);
    deleteOpenFilesAtExit();
  }

  /**
   * A new, empty file in the directory. Each index gets its own file, so a command run next to
   * the server (reindex, import) never overwrites the server's vectors. Files left behind by
   * processes that are gone are deleted first.
   */
  static createIn(directory: string): FloatVectorFile {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (isLeftover(name, path)) removeLeftover(path);
    }
    return new FloatVectorFile(join(directory, fileName()), null);
  }

  /** A new, empty file in a new temporary directory of its own. */
  static createTemporary(): FloatVectorFile {
    const directory = mkdtempSync(join(tmpdir(), 'vector-index-'));
    return new FloatVectorFile(join(directory, fileName()), directory);
  }

  /** Writes consecutive vectors of `dim` floats, the first at `slot`. */
  write(slot: number, dim: number, vectors: Float32Array): void {
    const fd = this.openFd();
    const bytes = Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength);
    let done = 0;
    while (done < bytes.length) {
      done += writeSync(fd, bytes, done, bytes.length - done, slot * dim * FLOAT_BYTES + done);
    }
  }

  /** Fills `into` with consecutive vectors of `dim` floats, the first at `slot`. */
  read(slot: number, dim: number, into: Float32Array): void {
    const fd = this.openFd();
    const bytes = Buffer.from(into.buffer, into.byteOffset, into.byteLength);
    let done = 0;
    while (done < bytes.length) {
      const read = readSync(fd, bytes, done, bytes.length - done, slot * dim * FLOAT_BYTES + done);
      if (read === 0) throw new Error(`The vector file ${this.path} ends before slot ${slot + Math.floor(done / (dim * FLOAT_BYTES))}.`);
      done += read;
    }
  }

  /** Copies the vector at slot `from` over the one at slot `to`, reusing `scratch` (`dim` floats). */
  move(from: number, to: number, dim: number, scratch: Float32Array): void {
    this.read(from, dim, scratch);
    this.write(to, dim, scratch);
  }

  /** Keeps the first `slots` vectors; after close there is nothing left to truncate. */
  truncate(slots: number, dim: number): void {
    if (this.fd !== null) ftruncateSync(this.fd, slots * dim * FLOAT_BYTES);
  }

  /** Closes and deletes the file (and its own directory); closing twice is fine. */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    openFiles.delete(this.path);
    unlinkQuietly(this.path);
    if (this.ownDirectory) rmSync(this.ownDirectory, { recursive: true, force: true });
  }

  private openFd(): number {
    if (this.fd === null) throw new Error('The vector index is closed.');
    return this.fd;
  }
}

const fileName = () => `vectors-${process.pid}-${randomUUID()}.f32`;

/** Files of indexes never closed (tests, one-off commands) are deleted when the process exits normally. */
function deleteOpenFilesAtExit(): void {
  if (deletesAtExit) return;
  deletesAtExit = true;
  process.once('exit', () => {
    for (const file of openFiles.values()) {
      try {
        file.close();
      } catch {
        // Exiting anyway: the next start deletes what is left (see createIn).
      }
    }
  });
}

/**
 * A vector file whose process is gone. A file with this process's id that this process did not
 * open is a previous run's (in a container the server often has the same id at every start).
 * Should a live process's file be taken for a leftover (another container on the same volume),
 * deleting it is harmless on POSIX systems, which keep an open file's data until it is closed.
 */
function isLeftover(name: string, path: string): boolean {
  const match = FILE_NAME.exec(name);
  if (!match || openFiles.has(path)) return false;
  const pid = Number(match[1]);
  return pid === process.pid || !isAlive(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Best effort: a leftover that cannot be deleted now (Windows keeps open files) costs disk only. */
function removeLeftover(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Left for the next start.
  }
}

/** Another process may have deleted the file already (see createIn). */
function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
