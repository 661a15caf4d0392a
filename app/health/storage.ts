import type { Runtime } from '../kernel.js';
import { fileSystemSpace, type StorageFailure } from '../../infra/storage-errors.js';

/**
 * Free bytes gained since a store's write was refused for room after which /health takes the
 * room as back, before any write has shown it: an idle server recovers in its report too.
 */
const ROOM_REGAINED_BYTES = 1024 * 1024;

export type RefusingStore = 'event_store' | 'document_store';

export interface StorageReport {
  /** The file system the embedded stores write to, named by its variable (never its path). */
  file_system: 'DATA_DIR';
  /** The stores whose last write it refused (a full disk, an I/O error); writes answer 507 or 503 meanwhile. */
  refusing: RefusingStore[];
  /** No room left: a refusal was for room, or the read models wait for room to save again. */
  full: boolean;
  since: string | null;
  free_bytes: number | null;
  size_bytes: number | null;
}

/** A refusal for room that the file system has since regained room for counts no more. */
function stillRefusing(failure: StorageFailure | null, freeBytes: number | null): failure is StorageFailure {
  if (!failure) return false;
  if (!failure.full || failure.freeBytesThen === null || freeBytes === null) return true;
  return freeBytes < failure.freeBytesThen + ROOM_REGAINED_BYTES;
}

/**
 * Whether the embedded stores' file system takes writes: from their last refused writes (each
 * store keeps its own until a write of it succeeds) and the read models' loss, which the
 * projection runner folds again by itself once there is room.
 */
export function storageReport(runtime: Runtime): StorageReport {
  const space = fileSystemSpace(runtime.config.dataDir);
  const freeBytes = space?.freeBytes ?? null;
  const loss = runtime.projections.readModelLoss();
  const eventLog = runtime.eventStore.storageFailure?.() ?? null;
  const readModels = runtime.documents.storageFailure?.() ?? null;
  const refusing: RefusingStore[] = [];
  const failures: StorageFailure[] = [];
  if (stillRefusing(eventLog, freeBytes)) {
    refusing.push('event_store');
    failures.push(eventLog);
  }
  if (loss || stillRefusing(readModels, freeBytes)) {
    refusing.push('document_store');
    failures.push(
      loss ? { since: loss.since, full: loss.storageFull, freeBytesThen: null } : (readModels as StorageFailure),
    );
  }
  return {
    file_system: 'DATA_DIR',
    refusing,
    full: failures.some((failure) => failure.full),
    since: failures.map((failure) => failure.since).sort()[0] ?? null,
    free_bytes: freeBytes,
    size_bytes: space?.sizeBytes ?? null,
  };
}
