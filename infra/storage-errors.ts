import { statfsSync } from 'node:fs';
import { DependencyUnavailableError, StorageFullError } from './errors.js';

/** SQLite's result codes and Node's errno codes that mean the file system has no room left. */
const NO_SPACE = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error says the file system is full (a SQLite driver error or a Node file system error). */
export function isNoSpace(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && NO_SPACE.has(code);
}

/**
 * The error is the storage failing under a write rather than the write being wrong: no room, an
 * I/O error, or memory. SQLite may have rolled the whole transaction back after one of these.
 */
export function isStorageFailure(error: unknown): boolean {
  if (error instanceof StorageFullError) return true;
  const code = codeOf(error);
  if (code === undefined) return false;
  return NO_SPACE.has(code) || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_NOMEM' || code === 'EIO';
}

/**
 * A driver's storage error as the project's own (what `dependency` names: 'event log', 'read
 * models', 'files', 'sessions'): no room is a StorageFullError (507), an I/O error a
 * DependencyUnavailableError (503, try again); anything else is returned as it is.
 */
export function translateStorageError(error: unknown, dependency: string): unknown {
  if (error instanceof DependencyUnavailableError) return error;
  if (isNoSpace(error)) return new StorageFullError(dependency);
  if (isStorageFailure(error)) {
    return new DependencyUnavailableError(
      dependency,
      "The server's storage failed to write; nothing was saved. Try again later.",
      503,
      5,
    );
  }
  return error;
}

/** A store's last write refused for its storage, until a write succeeds again. */
export interface StorageFailure {
  /** When the first write of this run of failures was refused (ISO 8601). */
  since: string;
  /** No room (as opposed to an I/O error). */
  full: boolean;
  /** The file system's free bytes then (statfs), null when it could not be read. */
  freeBytesThen: number | null;
}

/** The file system holding `dir`: its size and free bytes (for unprivileged writers), or null. */
export function fileSystemSpace(dir: string): { sizeBytes: number; freeBytes: number } | null {
  try {
    const stats = statfsSync(dir);
    return { sizeBytes: stats.blocks * stats.bsize, freeBytes: stats.bavail * stats.bsize };
  } catch {
    return null;
  }
}

/**
 * What a store keeps of its storage failures: the first of a run (with the free space then),
 * cleared by the next write that succeeds. /health reads it.
 */
export class StorageFailureRecord {
  private current: StorageFailure | null = null;

  /** `dir`: the directory of the store's file (statfs there), null for a store in memory. */
  constructor(private readonly dir: string | null) {}

  failed(error: unknown): void {
    if (this.current || !isStorageFailure(error)) return;
    const space = this.dir === null ? null : fileSystemSpace(this.dir);
    this.current = {
      since: new Date().toISOString(),
      full: isNoSpace(error) || error instanceof StorageFullError,
      freeBytesThen: space?.freeBytes ?? null,
    };
  }

  succeeded(): void {
    this.current = null;
  }

  get(): StorageFailure | null {
    return this.current;
  }
}
