import { randomUUID } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../process-alive.js';
import { errorField } from '../errors.js';

/** Where uploads are written until their command is decided; never archived by a backup. */
export const TMP_FOLDER = 'tmp';

/**
 * A partial upload whose owner cannot be checked (another host on a shared volume, a live
 * process with its pid, a name from before owners were recorded) is left this long after its
 * last write: no upload stalls for a day, and a removed file under a live upload would fail it.
 */
export const LEFTOVER_AGE_MS = 24 * 60 * 60 * 1000;

const SEPARATOR = '@';

/** `<host>@<pid>@<uuid>.part`: the owning process, so a start can tell its own leftovers from a live upload's. */
export function partialUploadName(): string {
  return `${encodeURIComponent(hostname())}${SEPARATOR}${process.pid}${SEPARATOR}${randomUUID()}.part`;
}

export function ownerOf(name: string): { host: string; pid: number } | null {
  const parts = name.split(SEPARATOR);
  if (parts.length !== 3 || !/^\d+$/.test(parts[1])) return null;
  try {
    return { host: decodeURIComponent(parts[0]), pid: Number(parts[1]) };
  } catch {
    return null;
  }
}

export interface LeftoverOptions {
  /** When this process started (wall clock: file times are). */
  startedAt: number;
  now: number;
  maxAgeMs?: number;
}

/**
 * Whether no live upload can own this partial file: this process's pid from before it started
 * (a previous process that had the same pid), a dead process on this host, or a file untouched
 * for longer than any upload lasts.
 */
export function isLeftover(name: string, modifiedAt: number, options: LeftoverOptions): boolean {
  if (options.now - modifiedAt > (options.maxAgeMs ?? LEFTOVER_AGE_MS)) return true;
  const owner = ownerOf(name);
  if (!owner || owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return modifiedAt < options.startedAt;
  return !isAlive(owner.pid);
}

/**
 * Removes the partial uploads a crash (`kill -9` mid-upload) left in `root/tmp`. Answers the
 * names removed. Another server on the same DATA_DIR keeps its uploads in flight.
 */
export async function removeLeftoverUploads(root: string, options: LeftoverOptions): Promise<string[]> {
  const dir = join(root, TMP_FOLDER);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errorField(error, 'code') === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.part')) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile() || !isLeftover(name, info.mtimeMs, options)) continue;
    await rm(path, { force: true });
    removed.push(name);
  }
  return removed;
}
