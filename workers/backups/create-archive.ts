import type { FastifyInstance } from 'fastify';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { BackupIncludes } from '../../contracts/backups/events.js';
import { BACKUP_MODULE_VERSION } from '../../commands/backups/module-version.js';
import type { EventStore } from '../../infra/event-store/port.js';
import type { FileAreas } from '../../infra/file-storage/port.js';
import { TMP_FOLDER } from '../../infra/file-storage/partial-uploads.js';
import { apiExports } from './api-export.js';
import { countArchiveWork, type ArchiveProgress } from './archive-progress.js';
import { storeUncompressed } from './compression.js';
import { eventLogStream } from './event-log.js';
import { partFiles, STORED_FILES_FOLDER } from './part-files.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  EVENT_LOG_NAME,
  MANIFEST_NAME,
  PARTS,
  READ_SIDE_PREFIX,
  type Manifest,
  type ManifestEntry,
  type PartName,
  type PartSummary,
} from './manifest.js';
import { checksumFileFor } from '../../contracts/backups/paths.js';
import type { ReadSideSnapshot } from './read-side-snapshot.js';

export interface ArchiveRequest {
  /** The archive's final path; it appears there only once complete. */
  file: string;
  dataDir: string;
  includes: BackupIncludes;
  backupId: number | null;
  createdAt: Date;
  eventStore: EventStore;
  /**
   * The log position the archive's event log ends at (a consistent prefix). With read-side
   * snapshots, it was read after they were taken, so the log covers their checkpoints.
   */
  upTo: number;
  /**
   * Snapshots of the read side's SQLite files (read-side-snapshot.ts), added under read-side/
   * with the log (include_db), so a restored server starts without a rebuild; absent: the log alone.
   */
  readSide?: readonly ReadSideSnapshot[];
  /** The app to export the API from, as this user sees it; null leaves the api part empty. */
  api: { app: FastifyInstance; baseUrl: string; userId: number | null } | null;
  /** Told the work ahead, then each unit done (the command line's progress bar). */
  progress?: ArchiveProgress;
  /**
   * The stored files: kept elsewhere than DATA_DIR/files (FILES_URL), the `files` part reads
   * them through it (part-files.ts); absent or the embedded adapter, the folder as it is.
   */
  files?: FileAreas;
}

export interface ArchiveResult {
  size: number;
  /** `sha256:<hex>` of the archive file. */
  checksum: string;
  eventCount: number;
  manifest: Manifest;
}

/**
 * Folders of DATA_DIR copied as they are: uploaded files, themes, modules. Uploads still being
 * received (files/tmp) are no file of the site, and a crash may have left some there.
 */
const FOLDER_PARTS: readonly {
  part: PartName;
  flag: keyof BackupIncludes;
  folder: string;
  skip?: readonly string[];
}[] = [
  { part: 'files', flag: 'include_files', folder: STORED_FILES_FOLDER, skip: [TMP_FOLDER] },
  { part: 'themes', flag: 'include_themes', folder: 'themes' },
  { part: 'modules', flag: 'include_modules', folder: 'modules' },
];

/**
 * Streams the parts the include flags ask for into a zip, then manifest.json with every
 * entry's size and SHA-256, and writes `ARCHIVE.zip.sha256` beside it. The zip is written
 * under a temporary name and renamed when complete, so a failure leaves no archive behind.
 */
export async function createArchive(request: ArchiveRequest): Promise<ArchiveResult> {
  const partial = `${request.file}.partial`;
  await mkdir(dirname(request.file), { recursive: true });
  await rm(partial, { force: true });
  // Imported with the first backup, not at start: archiver and its streams cost ~100 ms to load.
  const { ZipWriter } = await import('./zip-writer.js');
  const zip = new ZipWriter(partial, request.createdAt);
  const entries: ManifestEntry[] = [];
  const counter = { events: 0 };
  const progress = request.progress;
  try {
    if (progress) {
      const { dataDir, includes, eventStore, upTo } = request;
      const app = request.api?.app ?? null;
      progress.start(
        await countArchiveWork({
          dataDir,
          includes,
          eventStore,
          upTo,
          readSideFiles: request.readSide?.length ?? 0,
          folders: FOLDER_PARTS,
          app,
          files: request.files,
        }),
      );
    }
    if (request.includes.include_db) {
      const written = await zip.add(
        EVENT_LOG_NAME,
        eventLogStream(request.eventStore, request.upTo, counter, progress),
      );
      entries.push({ ...written, part: 'db' });
      for (const snapshot of request.readSide ?? []) {
        const name = `${READ_SIDE_PREFIX}${snapshot.file.name}`;
        entries.push({
          ...(await zip.add(name, createReadStream(snapshot.path, { highWaterMark: 1024 * 1024 }))),
          part: 'db',
        });
        progress?.tick();
      }
    }
    for (const { part, flag, folder, skip } of FOLDER_PARTS) {
      if (!request.includes[flag]) continue;
      for await (const file of partFiles(request.dataDir, folder, skip, request.files)) {
        // Opened before it is added: a file deleted meanwhile is skipped, and once open it
        // stays readable to the end even if it is deleted.
        const source = await file.open();
        if (!source) continue;
        const name = `${folder}/${file.relative}`;
        const written = await zip.add(name, source, { store: storeUncompressed(name) });
        entries.push({ ...written, part });
        progress?.tick();
      }
    }
    if (request.includes.include_api && request.api) {
      const onPath = progress ? () => progress.tick() : undefined;
      for await (const exported of apiExports(request.api.app, request.api.baseUrl, request.api.userId, onPath)) {
        entries.push({ ...(await zip.add(exported.name, exported.body)), part: 'api' });
      }
    }
    const manifest = buildManifest(request, entries, counter.events);
    await zip.add(MANIFEST_NAME, JSON.stringify(manifest, null, 2));
    progress?.tick();
    const { size, sha256 } = await zip.finish();
    await rename(partial, request.file);
    await writeFile(checksumFileFor(request.file), `${sha256}  ${basename(request.file)}\n`);
    return { size, checksum: `sha256:${sha256}`, eventCount: counter.events, manifest };
  } catch (error) {
    await zip.abort();
    await rm(partial, { force: true });
    await rm(request.file, { force: true });
    await rm(checksumFileFor(request.file), { force: true });
    throw error;
  }
}

function buildManifest(request: ArchiveRequest, entries: ManifestEntry[], eventCount: number): Manifest {
  // Object.fromEntries types its keys as string; PARTS names every PartName once.
  const parts = Object.fromEntries(
    PARTS.map(({ name, flag }) => {
      const mine = entries.filter((e) => e.part === name);
      const summary: PartSummary = {
        included: request.includes[flag],
        entries: mine.length,
        bytes: mine.reduce((n, e) => n + e.size, 0),
      };
      return [name, summary];
    }),
  ) as Record<PartName, PartSummary>;
  return {
    format: ARCHIVE_FORMAT,
    format_version: ARCHIVE_FORMAT_VERSION,
    backup_module_version: BACKUP_MODULE_VERSION,
    backup_id: request.backupId,
    created_at: request.createdAt.toISOString(),
    includes: request.includes,
    parts,
    event_count: request.includes.include_db ? eventCount : 0,
    last_position: request.includes.include_db ? request.upTo : 0,
    entries,
  };
}
