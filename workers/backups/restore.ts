import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { AppConfig } from '../../infra/config.js';
import { errorField, VersionConflictError } from '../../infra/errors.js';
import type { EventStore, NewEvent } from '../../infra/event-store/port.js';
import { FILE_AREAS, type FileArea, type FileAreas } from '../../infra/file-storage/port.js';
import { TMP_FOLDER } from '../../infra/file-storage/partial-uploads.js';
import { readSideFiles } from '../../infra/read-side-files.js';
import { createFileAreas } from '../../infra/file-storage/select.js';
import { createInfrastructure } from '../../infra/select.js';
import { logIdentityOf, stampRestoredReadSide } from '../../infra/log-identity.js';
import type { LogIdentity } from '../../infra/log-stamp.js';
import { parseChecked } from '../../infra/checked-json.js';
import { EventLineSchema, type EventLine } from './event-log.js';
import { RestoredBackupRecords } from './restored-records.js';
import { storedFileOf } from './part-files.js';
import { EVENT_LOG_NAME, READ_SIDE_PREFIX, type Manifest } from './manifest.js';
import { checkChecksumFile, RestoreRefusedError, verifyArchive } from './verify-archive.js';
import type { ZipArchive } from './zip-reader.js';

export { RestoreRefusedError } from './verify-archive.js';

export interface RestoreProgress {
  /** Called once per phase with its total, then tick per unit done. */
  start(phase: 'verify' | 'restore', total: number): { tick(amount?: number): void; stop(): void };
}

export interface RestoreResult {
  events: number;
  files: number;
  /**
   * Read-side SQLite files put back from the archive (read-side/): 0 for an archive without
   * them, whose read models the start rebuilds from the log.
   */
  readSideRestored: number;
  /** Backup records closed because their archives are not in the restored data. */
  backupsNotRestored: number;
  checkedChecksumFile: boolean;
  manifest: Manifest;
}

const APPEND_BATCH = 500;
const RESTORED_FOLDERS = ['files/', 'themes/', 'modules/'];
/** Partial uploads an archive made before they were left out may hold: no file of the site. */
const NOT_RESTORED = `files/${TMP_FOLDER}/`;

function isRestored(path: string): boolean {
  return RESTORED_FOLDERS.some((prefix) => path.startsWith(prefix)) && !path.startsWith(NOT_RESTORED);
}
const silentProgress: RestoreProgress = { start: () => ({ tick() {}, stop() {} }) };

async function assertEmptyTarget(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = errorField(error, 'code');
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new RestoreRefusedError(`The target DATA_DIR ${dir} is not a directory.`);
    throw error;
  }
  if (names.length > 0)
    throw new RestoreRefusedError(
      `The target DATA_DIR ${dir} is not empty; restore only into an empty or new directory.`,
    );
}

/**
 * Appends the log stream by stream in its original order, each run of one stream's events in
 * one append with the version the stream had, so ids, versions and order come back as they were.
 */
async function replayEvents(
  zip: ZipArchive,
  store: EventStore,
  manifest: Manifest,
  backups: RestoredBackupRecords,
  tick: (n: number) => void,
): Promise<{ count: number; positionsKept: boolean }> {
  const lines = createInterface({ input: await zip.open(EVENT_LOG_NAME), crlfDelay: Infinity });
  let run: EventLine[] = [];
  let count = 0;
  let runStartLine = 0;
  let lastPosition = 0;
  // The read side's checkpoints name log positions: they hold only if every event is back at its own.
  let positionsKept = true;
  const flush = async () => {
    if (run.length === 0) return;
    const events: NewEvent[] = run.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata }));
    try {
      const appended = await store.append(run[0].streamId, events, run[0].streamVersion - 1);
      if (appended.position !== run[run.length - 1].position) positionsKept = false;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      throw new RestoreRefusedError(
        `events.ndjson line ${runStartLine}: stream ${run[0].streamId} skips from version ${error.actual} to ${run[0].streamVersion} (the log is inconsistent).`,
      );
    }
    tick(run.length);
    run = [];
  };
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber += 1;
    if (text === '') continue;
    const parsed = parseChecked(EventLineSchema, text);
    if (!parsed.ok)
      throw new RestoreRefusedError(`events.ndjson line ${lineNumber} is not an event: ${parsed.problem}.`);
    const line = parsed.value;
    count += 1;
    if (!(line.position > lastPosition)) {
      throw new RestoreRefusedError(
        `events.ndjson line ${lineNumber} is not in log order: position ${line.position} after ${lastPosition}.`,
      );
    }
    lastPosition = line.position;
    const previous = run[run.length - 1];
    if (previous && (previous.streamId !== line.streamId || run.length >= APPEND_BATCH)) await flush();
    const head = run[run.length - 1];
    if (head && head.streamVersion + 1 !== line.streamVersion) {
      throw new RestoreRefusedError(
        `events.ndjson line ${lineNumber}: stream ${line.streamId} skips from version ${head.streamVersion} to ${line.streamVersion}.`,
      );
    }
    if (run.length === 0) runStartLine = lineNumber;
    run.push(line);
    backups.see(line);
  }
  await flush();
  if (count !== manifest.event_count) {
    throw new RestoreRefusedError(`events.ndjson holds ${count} events but the manifest says ${manifest.event_count}.`);
  }
  return { count, positionsKept };
}

/**
 * Puts the read side's snapshots (read-side/NAME) at DATA_DIR/NAME, in place of the empty files
 * the restore's own adapters made there, for the names this configuration uses: a start then
 * resumes from their checkpoints. Answers how many it put back.
 */
async function extractReadSide(
  zip: ZipArchive,
  manifest: Manifest,
  target: string,
  config: AppConfig,
  positionsKept: boolean,
  tick: () => void,
): Promise<number> {
  const files = readSideFiles({ ...config, dataDir: target }).filter((f) => positionsKept || f.independentOfLog);
  const names = new Set(files.map((f) => f.name));
  let restored = 0;
  for (const entry of manifest.entries) {
    if (!entry.path.startsWith(READ_SIDE_PREFIX)) continue;
    const name = entry.path.slice(READ_SIDE_PREFIX.length);
    tick();
    if (!names.has(name)) continue;
    const destination = join(target, ...name.split('/'));
    for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${destination}${suffix}`, { force: true });
    await mkdir(dirname(destination), { recursive: true });
    await pipeline(await zip.open(entry.path), createWriteStream(destination, { flags: 'wx' }));
    restored += 1;
  }
  return restored;
}

/** The stored files put back through an adapter that keeps them elsewhere: removed again if the restore fails. */
type PutFiles = { area: FileArea; storedName: string }[];

/**
 * Writes the folder parts' entries into the staging DATA_DIR; with stored files kept elsewhere
 * (FILES_URL), the entries that are stored files (`files/<area>/<stored name>`) go back through
 * the adapter instead, under their names, each noted in `put`.
 */
async function extractFolders(
  zip: ZipArchive,
  manifest: Manifest,
  target: string,
  storedFiles: FileAreas,
  put: PutFiles,
  tick: () => void,
): Promise<number> {
  let files = 0;
  for (const entry of manifest.entries) {
    if (!isRestored(entry.path)) continue;
    const stored = storedFiles.kind === 'local' ? null : storedFileOf(entry.path);
    if (stored) {
      await storedFiles.putFile(stored.area, stored.storedName, await zip.open(entry.path));
      put.push(stored);
      files += 1;
      tick();
      continue;
    }
    const destination = join(target, ...entry.path.split('/'));
    await mkdir(dirname(destination), { recursive: true });
    await pipeline(await zip.open(entry.path), createWriteStream(destination, { flags: 'wx' }));
    files += 1;
    tick();
  }
  return files;
}

/** Removes again the stored files a failed restore put back (FILES_URL), so trying again finds the storage empty. */
async function removePutFiles(where: FileAreas | AppConfig, put: PutFiles): Promise<void> {
  if (put.length === 0) return;
  const files = 'kind' in where ? where : await createFileAreas(where);
  try {
    for (const { area, storedName } of put) await files.area(area).remove(storedName);
  } finally {
    if (files !== where) await files.close();
  }
}

/**
 * Restores an archive into an empty DATA_DIR: checks the checksum file and every entry against
 * the manifest first, then builds the new DATA_DIR in a hidden folder inside the target and moves
 * it into place, so a failure leaves the target as it was. The read side's snapshots, when the
 * archive has them, go back beside the log, so the start resumes from their checkpoints and
 * applies only the events after them (the restore's own included); without them the start
 * rebuilds the read models from the log. With FILES_URL the stored files go back into its
 * database, which must hold none, and are removed again if the restore fails.
 */
export async function restoreArchive(options: {
  archive: string;
  config: AppConfig;
  logger: Logger;
  progress?: RestoreProgress;
  /**
   * Where the stored files go back, in place of the configuration's (a test's schema of its own);
   * the caller closes it.
   */
  files?: FileAreas;
}): Promise<RestoreResult> {
  const { archive, config, logger } = options;
  const progress = options.progress ?? silentProgress;
  const target = config.dataDir;
  await assertEmptyTarget(target);
  const checkedChecksumFile = await checkChecksumFile(archive);
  const zip = await (async () => {
    // Held in an object: the callbacks set the bar, which the compiler's flow analysis of a `let` would not see.
    const verifying: { bar: ReturnType<RestoreProgress['start']> | null } = { bar: null };
    try {
      return await verifyArchive(archive, {
        start: (total) => (verifying.bar = progress.start('verify', total)),
        tick: () => verifying.bar?.tick(),
      });
    } finally {
      verifying.bar?.stop();
    }
  })();
  const { manifest } = zip;
  const targetExisted = existsSync(target);
  // Built inside the target, so moving it into place never crosses file systems (DATA_DIR may be a mount).
  const staging = join(target, `.restoring-${process.pid}`);
  await mkdir(staging, { recursive: true });
  const readSideEntries = manifest.entries.filter((e) => e.path.startsWith(READ_SIDE_PREFIX)).length;
  const bar = progress.start(
    'restore',
    manifest.event_count + manifest.entries.filter((e) => isRestored(e.path)).length + readSideEntries,
  );
  const put: PutFiles = [];
  try {
    const infra = await createInfrastructure({ ...config, dataDir: staging }, logger);
    let events = 0;
    let files = 0;
    let backupsNotRestored = 0;
    let positionsKept = false;
    let log: LogIdentity;
    try {
      if ((await infra.eventStore.lastPosition()) > 0)
        throw new RestoreRefusedError('The target event store is not empty.');
      const storedFiles = options.files ?? infra.files;
      if (storedFiles.kind !== 'local') {
        for (const area of FILE_AREAS) {
          if ((await storedFiles.area(area).list()).length > 0)
            throw new RestoreRefusedError('The target file storage (FILES_URL) is not empty.');
        }
      }
      const backups = new RestoredBackupRecords();
      if (manifest.includes.include_db) {
        ({ count: events, positionsKept } = await replayEvents(zip.zip, infra.eventStore, manifest, backups, (n) =>
          bar.tick(n),
        ));
      }
      files = await extractFolders(zip.zip, manifest, staging, storedFiles, put, () => bar.tick());
      // After the files: an archive the restore put in place would count as present.
      backupsNotRestored = await backups.closeMissing(infra.eventStore, staging, {
        userId: null,
        at: new Date().toISOString(),
        requestId: 'restore',
      });
      // The restored log is a new one, with an identity of its own: another deployment may still
      // run on the archived one.
      log = await logIdentityOf(infra.eventStore, config);
    } finally {
      await infra.close();
    }
    let readSideRestored = 0;
    if (readSideEntries > 0)
      readSideRestored = await extractReadSide(zip.zip, manifest, staging, config, positionsKept, () => bar.tick());
    // The snapshots put back hold the archived log's stamp: they are the restored log's now.
    await stampRestoredReadSide({ ...config, dataDir: staging }, log, new Date());
    if (!positionsKept && readSideEntries > 0)
      logger.warn(
        'the restored log has other positions than the archived one: the read side is rebuilt from the log at start instead',
      );
    for (const name of await readdir(staging)) await rename(join(staging, name), join(target, name));
    await rmdir(staging);
    return { events, files, readSideRestored, backupsNotRestored, checkedChecksumFile, manifest };
  } catch (error) {
    await removePutFiles(options.files ?? config, put).catch((err: unknown) =>
      logger.warn({ err, count: put.length }, 'files the failed restore put back could not be removed'),
    );
    await rm(staging, { recursive: true, force: true });
    if (!targetExisted) await rmdir(target).catch(() => undefined);
    throw error;
  } finally {
    bar.stop();
    zip.zip.close();
  }
}
