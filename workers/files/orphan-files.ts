import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { FileStorage } from '../../infra/file-storage/port.js';

/**
 * A stored file no record owns is left this long after its last write: an upload moves its file
 * into place before its record is projected, and another server on the same DATA_DIR may still
 * be recording one.
 */
export const ORPHAN_AGE_MS = 60 * 60 * 1000;

/** The records that own an area's files: the projection that writes them, and their files' names. */
export interface FileOwners {
  /** Names the files in the log (`asset files`). */
  label: string;
  projection: string;
  ownedNames(): Promise<ReadonlySet<string>>;
}

/**
 * Removes the files of `storage` that no record owns (a crash between storing a file and
 * recording it, or between recording a replacement or a delete and removing the files it let
 * go), once they are older than ORPHAN_AGE_MS. Answers how many it removed. Only the storage's
 * own files are looked at: backups, themes and anything else in DATA_DIR are not in its listing.
 */
export async function removeOrphanFiles(
  runtime: ModuleRuntime,
  storage: FileStorage,
  owners: FileOwners,
  now: number,
): Promise<number> {
  // A parked projection's read model misses records: their files would look unowned.
  const parked = runtime.projections.status().find((s) => s.name === owners.projection)?.parked;
  if (parked) {
    runtime.logger.warn(
      { projection: owners.projection },
      `orphan ${owners.label} not looked for: the read model is parked`,
    );
    return 0;
  }
  // Owners first, files second: a file stored in between is too recent to be removed.
  const owned = await owners.ownedNames();
  let removed = 0;
  for (const file of await storage.list()) {
    if (owned.has(file.storedName) || now - file.modifiedAt <= ORPHAN_AGE_MS) continue;
    await storage.remove(file.storedName);
    removed++;
  }
  return removed;
}
