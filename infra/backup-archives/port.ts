import type { Readable } from 'node:stream';
import type { ByteRange } from '../file-storage/port.js';
import type { LeftoverOptions } from '../file-storage/partial-uploads.js';

/**
 * Where backup archives live (issue 50): DATA_DIR/backups (`local`), or FILES_URL's PostgreSQL
 * database (`postgresql`), shared by every app server. The value is the record's `o:storage`.
 */
export const BACKUP_STORAGE_KINDS = ['local', 'postgresql'] as const;
export type BackupStorageKind = (typeof BACKUP_STORAGE_KINDS)[number];

/** What the archive job hands over: the bytes it wrote and measured, which the store checks again. */
export interface StagedArchive {
  /** The finished archive on this machine's disk (stagingFile's path). */
  path: string;
  size: number;
  /** Hex SHA-256 of the archive. */
  sha256: string;
}

/** A stored archive as a listing sees it. */
export interface StoredArchive {
  filename: string;
  size: number;
  /** When it was stored (wall clock, ms). */
  modifiedAt: number;
}

/**
 * The archives of one deployment, by file name (`backup-<id>-<stamp>.zip`). An archive is
 * written whole to a local staging file first (the zip writer needs a file, and the archive is
 * checked there), then put here: readers never see part of one.
 */
export interface BackupArchives {
  readonly kind: BackupStorageKind;
  /**
   * Where the job writes the archive (and `ARCHIVE.zip.sha256` beside it) before `put`: always in
   * DATA_DIR/backups, which no archive holds. The local store's archive is that very file.
   */
  stagingFile(filename: string): string;
  /**
   * The archive's location as the record's `o:path` shows it: for `local` the absolute path; for
   * `postgresql` `postgresql://host:port/database?schema=name#backups/<filename>` (no credentials).
   */
  location(filename: string): string;
  /**
   * Stores the staged archive under `filename`, streamed (never held whole), checked against the
   * size and checksum the job measured; the staging file and its checksum file are then removed
   * (the local store keeps them: they are its archive). A failure stores nothing.
   */
  put(filename: string, staged: StagedArchive): Promise<void>;
  /** The stored archive's size, or null when there is none of that name. */
  stat(filename: string): Promise<{ size: number } | null>;
  /** Streams a stored archive, or the inclusive byte range of it; a missing one errors with `code: 'ENOENT'`. */
  openRead(filename: string, range?: ByteRange): Readable;
  /** Removes a stored archive (and any staging file of it on this machine); a missing one is not an error. */
  remove(filename: string): Promise<void>;
  /** Every stored archive (complete ones: no staging file, no put under way), by name. */
  list(): Promise<StoredArchive[]>;
  /** Removes the puts a crash left half done (their owner gone); answers how many. */
  removeLeftovers(options: LeftoverOptions): Promise<number>;
  close(): Promise<void>;
}

/** What an archive may be named: a plain file name ending in `.zip`, nothing that leaves its folder. */
const ARCHIVE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.zip$/;

export function isArchiveName(filename: string): boolean {
  return ARCHIVE_NAME.test(filename) && !filename.includes('..');
}

/** The name itself, or an error before anything is touched. */
export function checkedArchiveName(filename: string): string {
  if (!isArchiveName(filename)) throw new Error('Invalid backup archive name.');
  return filename;
}
