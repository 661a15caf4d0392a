import { closeSync, existsSync, fsyncSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { Type } from '@sinclair/typebox';
import { parseChecked } from '../checked-json.js';
import { isAlive } from '../process-alive.js';

/**
 * A rebuild rewrites every read model, and waiting for the disk at each of its commits cost
 * about a sixth of its time. So SqliteDocumentStore.deferSync lets its writes skip the fsync,
 * with this marker file beside the read models for as long as they do: a power cut or an
 * operating-system crash meanwhile can tear the files, and the next open must not trust them.
 * A process crash cannot tear them (the kernel still holds every write): the next open on the
 * same boot syncs the files and goes on from their checkpoints.
 */
interface UnsyncedMarker {
  pid: number;
  /** The process's start, in clock ticks after boot (/proc): a pid reused later is another process. */
  started: number | null;
  host: string;
  /** The kernel's boot id: another one means the machine went down since, losing unsynced writes. */
  bootId: string | null;
  since: string;
}

export function unsyncedMarkerFile(readModelsFile: string): string {
  return `${readModelsFile}.unsynced`;
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** Field 22 of /proc/PID/stat, counted after the command's closing parenthesis (the command may hold spaces). */
function processStart(pid: number | 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(start) ? start : null;
  } catch {
    return null;
  }
}

function syncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync each file that exists, then their folder (so a file made or removed there is recorded too). */
function syncFiles(paths: readonly string[]): void {
  for (const path of paths) if (existsSync(path)) syncPath(path, 'r+');
  syncPath(dirname(paths[0]), 'r');
}

/** The files a read-model file's writes reach: it and its text file, with their WALs. */
function writtenFiles(readModelsFile: string, textFile: string): string[] {
  return [readModelsFile, `${readModelsFile}-wal`, textFile, `${textFile}-wal`];
}

/** Before the first write that skips its fsync: the marker, itself on disk. */
export function markUnsynced(readModelsFile: string): void {
  const marker: UnsyncedMarker = {
    pid: process.pid,
    started: processStart('self'),
    host: hostname(),
    bootId: bootId(),
    since: new Date().toISOString(),
  };
  const file = unsyncedMarkerFile(readModelsFile);
  writeFileSync(file, JSON.stringify(marker));
  syncFiles([file]);
}

/** After the last write that skipped its fsync: the files synced, then the marker removed. */
export function clearUnsynced(readModelsFile: string, textFile: string): void {
  syncFiles(writtenFiles(readModelsFile, textFile));
  rmSync(unsyncedMarkerFile(readModelsFile), { force: true });
  syncFiles([readModelsFile]);
}

/** The marker as read back, checked rather than cast: a file another process left, perhaps half written. */
const MarkerFile = Type.Object({
  pid: Type.Number(),
  host: Type.String(),
  started: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  bootId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  since: Type.Optional(Type.Unknown()),
});

function readMarker(file: string): UnsyncedMarker | null {
  try {
    const read = parseChecked(MarkerFile, readFileSync(file, 'utf8'));
    if (!read.ok) return null;
    const parsed = read.value;
    return {
      pid: parsed.pid,
      started: parsed.started ?? null,
      host: parsed.host,
      bootId: parsed.bootId ?? null,
      since: String(parsed.since),
    };
  } catch {
    return null;
  }
}

export type UnsyncedRecovery = 'none' | 'synced' | 'discarded';

/**
 * At open, before any connection: what a deferSync that never finished left. Refuses while its
 * process still runs (a rebuild: stop it or wait). After a process crash on this boot, the files
 * are whole: they are synced and kept ('synced'). Otherwise (the machine went down, or the
 * marker is unreadable) they may be torn: they are removed, and the next start replays the log
 * into new ones ('discarded').
 */
export function recoverUnsynced(readModelsFile: string, textFile: string): UnsyncedRecovery {
  const file = unsyncedMarkerFile(readModelsFile);
  if (!existsSync(file)) return 'none';
  const marker = readMarker(file);
  if (marker && marker.host !== hostname()) {
    throw new Error(
      `${file}: the read models are being written without syncing by process ${marker.pid} on host ${marker.host} (since ${marker.since}). ` +
        `If it no longer runs, remove ${file} and the read-model files beside it; the next start replays the log into new ones.`,
    );
  }
  if (marker && isAlive(marker.pid) && (marker.started === null || marker.started === processStart(marker.pid))) {
    throw new Error(
      `${file}: the read models are being rebuilt by process ${marker.pid} (since ${marker.since}). Wait for it, or stop it, first.`,
    );
  }
  if (marker && marker.bootId !== null && marker.bootId === bootId()) {
    clearUnsynced(readModelsFile, textFile);
    return 'synced';
  }
  for (const path of [readModelsFile, textFile].flatMap((f) => [f, `${f}-wal`, `${f}-shm`]))
    rmSync(path, { force: true });
  rmSync(file, { force: true });
  syncFiles([readModelsFile]);
  return 'discarded';
}
