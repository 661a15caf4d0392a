import type { FileStorage, PendingFile } from '../infra/file-storage/port.js';

/**
 * Moves a received file to its stored name, then records it. If the command is refused or
 * fails, the stored file is removed again, so nothing is left half written.
 */
export async function commitThen<T>(storage: FileStorage, pending: PendingFile, record: () => Promise<T>): Promise<T> {
  await pending.commit();
  try {
    return await record();
  } catch (error) {
    await storage.remove(pending.storedName);
    throw error;
  }
}
