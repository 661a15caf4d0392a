import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { AppConfig } from '../../infra/config.js';
import type { EventStore } from '../../infra/event-store/port.js';
import { readSideFiles, type ReadSideFile } from '../../infra/read-side-files.js';
import { backupsDir } from '../../contracts/backups/paths.js';

export interface ReadSideSnapshot {
  file: ReadSideFile;
  /** The snapshot's path, under the folder given to snapshotReadSide. */
  path: string;
}

/**
 * One consistent copy of a live SQLite file: VACUUM INTO from a read-only connection of its own,
 * which reads the last committed state in one read transaction (WAL lets the writers go on
 * meanwhile). A copy of the file's bytes could tear a page written during the copy, and would
 * miss what is still in the -wal file. Synchronous: the event loop waits while it copies.
 */
function snapshotSqlite(source: string, target: string): void {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

/**
 * Snapshots the read side's files that exist, in the order given (the read models, with the
 * checkpoints, first: see infra/read-side-files.ts), into `folder` under their names.
 */
export async function snapshotReadSide(files: readonly ReadSideFile[], folder: string): Promise<ReadSideSnapshot[]> {
  const snapshots: ReadSideSnapshot[] = [];
  for (const file of files) {
    if (!existsSync(file.path)) continue;
    const path = join(folder, ...file.name.split('/'));
    await mkdir(dirname(path), { recursive: true });
    snapshotSqlite(file.path, path);
    snapshots.push({ file, path });
  }
  return snapshots;
}

const SNAPSHOT_FOLDER_PREFIX = '.read-side-';
/** Longer than any backup may take (the route waits two hours): a folder this old was left by a crash. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/** Removes snapshot folders a process that crashed mid-backup left behind. */
async function removeAbandonedSnapshots(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(SNAPSHOT_FOLDER_PREFIX)) continue;
    const folder = join(dir, name);
    const changed = await stat(folder).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - changed > ABANDONED_AFTER_MS) await rm(folder, { recursive: true, force: true });
  }
}

export interface BackupStartingPoint {
  /** The log position the archive ends at: read after the snapshots, so it covers their checkpoints. */
  upTo: number;
  readSide: ReadSideSnapshot[];
  /** Removes the snapshots (once the archive holds them, or the backup failed). */
  discard(): Promise<void>;
}

/**
 * Where a backup starts, taken before its request is appended: the read side's snapshots, then
 * the log's end. The snapshots are never ahead of the archived log, and the archive's log stops
 * before the backup's own request, as it did before the read side was archived. They are kept
 * in DATA_DIR/backups (hidden), where a worker in another process on the same DATA_DIR reads them.
 */
export async function backupStartingPoint(
  config: AppConfig,
  eventStore: EventStore,
  withReadSide: boolean,
  logger: { warn(details: object, message: string): void },
): Promise<BackupStartingPoint> {
  await removeAbandonedSnapshots(backupsDir(config.dataDir));
  const folder = join(backupsDir(config.dataDir), `${SNAPSHOT_FOLDER_PREFIX}${randomUUID()}`);
  const discard = () => rm(folder, { recursive: true, force: true });
  let readSide: ReadSideSnapshot[] = [];
  if (withReadSide) {
    try {
      readSide = await snapshotReadSide(readSideFiles(config), folder);
    } catch (error) {
      // The log alone still makes a complete backup (a restore then replays it); the job reports
      // an unusable backups folder in words the caller can act on.
      logger.warn({ err: error }, 'the read side could not be snapshotted: this backup holds the log alone');
      await discard().catch(() => undefined);
    }
  }
  // Nothing to remove without snapshots (the backups folder may not even be usable).
  return {
    upTo: await eventStore.lastPosition(),
    readSide,
    discard: readSide.length > 0 ? discard : async () => undefined,
  };
}
