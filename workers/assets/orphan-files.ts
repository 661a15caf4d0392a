import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { assetsProjection } from '../../projections/assets/assets.js';
import { assetDocs } from '../../queries/assets/documents.js';

/**
 * A stored file no asset record owns is left this long after its last write: an upload moves
 * its file into place before its record is projected, and another server on the same DATA_DIR
 * may still be recording one.
 */
export const ORPHAN_AGE_MS = 60 * 60 * 1000;

/**
 * Removes the asset files no asset record owns (a crash between storing a file and recording
 * it, or between recording a replacement and removing the file it replaced), once they are
 * older than ORPHAN_AGE_MS. Answers how many it removed. Only the storage's own files are
 * looked at: backups, themes and anything else in DATA_DIR are not in its listing.
 */
export async function removeOrphanFiles(runtime: ModuleRuntime, storage: FileStorage, now: number): Promise<number> {
  // A parked projection's read model misses records: their files would look unowned.
  const parked = runtime.projections.status().find((s) => s.name === assetsProjection.name)?.parked;
  if (parked) {
    runtime.logger.warn(
      { projection: assetsProjection.name },
      'orphan asset files not looked for: the assets read model is parked',
    );
    return 0;
  }
  // Owners first, files second: a file stored in between is too recent to be removed.
  const owned = new Set(
    (await assetDocs(runtime.documents).find({}, { fields: ['stored_name'] })).map((doc) => doc.stored_name),
  );
  let removed = 0;
  for (const file of await storage.list()) {
    if (owned.has(file.storedName) || now - file.modifiedAt <= ORPHAN_AGE_MS) continue;
    await storage.remove(file.storedName);
    removed++;
  }
  return removed;
}
