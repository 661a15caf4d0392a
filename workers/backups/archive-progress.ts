import type { FastifyInstance } from 'fastify';
import type { BackupIncludes } from '../../contracts/backups/events.js';
import type { EventStore } from '../../infra/event-store/port.js';
import type { FileAreas } from '../../infra/file-storage/port.js';
import { listablePaths } from './api-export.js';
import { partFiles } from './part-files.js';

/**
 * How far an archive has got, in units of work: one per event of the log, one per read-side
 * snapshot, file, API export, and one for the manifest. The command line shows it as a bar.
 */
export interface ArchiveProgress {
  /** Called once, before anything is written, with the units the archive will take. */
  start(total: number): void;
  tick(amount?: number): void;
}

export interface ArchiveWork {
  dataDir: string;
  includes: BackupIncludes;
  eventStore: EventStore;
  upTo: number;
  readSideFiles: number;
  folders: readonly { flag: keyof BackupIncludes; folder: string; skip?: readonly string[] }[];
  app: FastifyInstance | null;
  /** The stored files, when the `files` part is read through them (create-archive.ts). */
  files?: FileAreas;
}

/**
 * Counts the units before the archive is written: the folders are walked once more for it, a
 * cost the command line (the only caller that shows progress) pays for a bar that means something.
 * The log counts as the events it holds, at most `upTo` (positions are 1, 2, 3... in the embedded log).
 */
export async function countArchiveWork(work: ArchiveWork): Promise<number> {
  let total = 1;
  if (work.includes.include_db) total += Math.min(await work.eventStore.countEvents(), work.upTo) + work.readSideFiles;
  for (const { flag, folder, skip } of work.folders) {
    if (!work.includes[flag]) continue;
    for await (const _file of partFiles(work.dataDir, folder, skip, work.files)) total += 1;
  }
  if (work.includes.include_api && work.app) total += (await listablePaths(work.app)).length;
  return total;
}
