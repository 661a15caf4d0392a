import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { ReadSideFile } from '../../infra/read-side-files.js';

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
