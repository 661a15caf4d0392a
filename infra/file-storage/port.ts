import type { Readable } from 'node:stream';
import type { LeftoverOptions } from './partial-uploads.js';

/** What the storage learnt while receiving a file: enough for the event that records it. */
export interface ReceivedFile {
  /** Generated name (uuid plus the lower-cased extension): never derived from what the client sent. */
  storedName: string;
  size: number;
  sha256: string;
  /** The first bytes, for content sniffing without reading the file again. */
  head: Buffer;
  /** True when the source stopped at the size limit: the file is incomplete and must be discarded. */
  truncated: boolean;
}

/** A received file waiting in the temporary area until the command that records it is decided. */
export interface PendingFile extends ReceivedFile {
  /** Moves the file to its stored name, where openRead finds it. */
  commit(): Promise<void>;
  /** Deletes the temporary file (safe to call twice or after a failed receive). */
  discard(): Promise<void>;
}

/** Inclusive byte offsets, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredFileInfo {
  size: number;
}

/** A stored file as a listing sees it: its name and when it was last written (wall clock, ms). */
export interface StoredFileEntry {
  storedName: string;
  modifiedAt: number;
}

/**
 * Where uploaded files live: one area of them (FileAreas). Every file stays under one root
 * (DATA_DIR/files in the embedded adapter, one database in PostgreSQL's) so backups archive them
 * all; names are generated so no client input reaches a path.
 */
export interface FileStorage {
  /** Streams the source to a temporary file (never buffered whole); a `truncated` flag on the source is read when it ends. */
  receive(source: Readable & { truncated?: boolean }, extension: string): Promise<PendingFile>;
  /** Size of a stored file, or null when it does not exist. */
  stat(storedName: string): Promise<StoredFileInfo | null>;
  /** Streams a stored file, or the inclusive byte range of it. */
  openRead(storedName: string, range?: ByteRange): Readable;
  /** Removes a stored file; a missing file is not an error. */
  remove(storedName: string): Promise<void>;
  /**
   * A path on this machine holding the stored file's bytes, for a library that reads a file at
   * random offsets (an image's tiles): the file itself here; an adapter keeping files elsewhere
   * answers a local copy. Null when the file does not exist.
   */
  localPath(storedName: string): Promise<string | null>;
  /** Every stored file of this area (names of the storage's own form only; temporary uploads are not listed). */
  list(): Promise<StoredFileEntry[]>;
}

/** Stored names are `<uuid>` or `<uuid>.<ext>`; anything else is refused before touching the disk. */
export const STORED_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.[a-z0-9]{1,16})?$/;

/** The name itself, or an error before anything is touched. */
export function checkedName(storedName: string): string {
  if (!STORED_NAME.test(storedName)) throw new Error('Invalid stored file name.');
  return storedName;
}

/** The areas files are kept in, each a FileStorage of its own. */
export const FILE_AREAS = ['media', 'assets'] as const;
/** `media`: media originals, derivatives and pyramids; `assets`: the asset library's files. */
export type FileArea = (typeof FILE_AREAS)[number];

/**
 * Every area of one deployment's files, on the adapter the configuration chose
 * (infra/file-storage/select.ts): what a runtime holds, and closes.
 */
export interface FileAreas {
  /** `local`: DATA_DIR/files; `postgres`: FILES_URL's database. */
  readonly kind: 'local' | 'postgres';
  /** The storage of one area; the same object on every call. */
  area(area: FileArea): FileStorage;
  /**
   * Removes the partial uploads a crash left (`kill -9` mid-upload), of every area; another
   * server's uploads in flight are kept (partial-uploads.ts, isLeftover). Answers their names.
   */
  removeLeftoverUploads(options: LeftoverOptions): Promise<string[]>;
  /**
   * Stores `source` under a name it was stored by before, at once (a restore putting an
   * archive's files back). Refuses a name of another form, or one stored already.
   */
  putFile(area: FileArea, storedName: string, source: Readable): Promise<void>;
  /** Resolves when the storage takes reads and writes (/health), rejects otherwise. */
  check(): Promise<void>;
  close(): Promise<void>;
}
