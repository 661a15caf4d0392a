import { randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from './process-alive.js';

/** The kinds of file the embedded stores keep, by name prefix and extension. */
const KINDS = { vectors: 'f32', texts: 'txt', strings: 'txt' } as const;
export type ScratchKind = keyof typeof KINDS;

/**
 * `vectors-<pid>-<uuid>.f32`, `texts-<pid>-<uuid>.txt` and so on: the process id tells a crashed
 * run's leftover from a live process's file.
 */
const FILE_NAME = /^(?:vectors|texts|strings)-(\d+)-[0-9a-f-]+\.(?:f32|txt)$/;
/** Files this process has open, by path. */
const openFiles = new Map<string, ScratchFile>();
let deletesAtExit = false;

/**
 * A file an embedded store (the vector index, the read models) keeps beside its memory: written
 * and read at positions, never needed after the process (both are rebuilt at start), so there is
 * no fsync and it is deleted on close. Its bytes live in the page cache, not in the process.
 */
export class ScratchFile {
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
   * A new, empty file in the directory (a fresh temporary directory when none is given). Each
   * store gets its own files, so a command run next to the server (reindex, import) never
   * overwrites the server's. Files left behind by processes that are gone are deleted first.
   */
  static create(kind: ScratchKind, directory?: string): ScratchFile {
    const name = `${kind}-${process.pid}-${randomUUID()}.${KINDS[kind]}`;
    if (directory === undefined) {
      const own = mkdtempSync(join(tmpdir(), `${kind}-`));
      return new ScratchFile(join(own, name), own);
    }
    for (const existing of readdirSync(directory)) {
      const path = join(directory, existing);
      if (isLeftover(existing, path)) removeLeftover(path);
    }
    return new ScratchFile(join(directory, name), null);
  }

  writeAt(bytes: Uint8Array, position: number): void {
    const fd = this.openFd();
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
  }

  /** Fills `into` from `position`; the file must hold that many bytes there. */
  readAt(into: Uint8Array, position: number): void {
    const fd = this.openFd();
    let done = 0;
    while (done < into.length) {
      const read = readSync(fd, into, done, into.length - done, position + done);
      if (read === 0) throw new Error(`The file ${this.path} ends at ${position + done}, before the ${into.length} bytes asked from ${position}.`);
      done += read;
    }
  }

  /** Keeps the first `bytes`; after close there is nothing left to truncate. */
  truncate(bytes: number): void {
    if (this.fd !== null) ftruncateSync(this.fd, bytes);
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
    if (this.fd === null) throw new Error(`The file ${this.path} is closed.`);
    return this.fd;
  }
}

/** Files of stores never closed (tests, one-off commands) are deleted when the process exits normally. */
function deleteOpenFilesAtExit(): void {
  if (deletesAtExit) return;
  deletesAtExit = true;
  process.once('exit', () => {
    for (const file of openFiles.values()) {
      try {
        file.close();
      } catch {
        // Exiting anyway: the next start deletes what is left (see create).
      }
    }
  });
}

/**
 * A file whose process is gone. A file with this process's id that this process did not open is
 * a previous run's (in a container the server often has the same id at every start). Should a
 * live process's file be taken for a leftover (another container on the same volume), deleting it
 * is harmless on POSIX systems, which keep an open file's data until it is closed.
 */
function isLeftover(name: string, path: string): boolean {
  const match = FILE_NAME.exec(name);
  if (!match || openFiles.has(path)) return false;
  const pid = Number(match[1]);
  return pid === process.pid || !isAlive(pid);
}


/** Best effort: a leftover that cannot be deleted now (Windows keeps open files) costs disk only. */
function removeLeftover(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Left for the next start.
  }
}

/** Another process may have deleted the file already (see create). */
function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
