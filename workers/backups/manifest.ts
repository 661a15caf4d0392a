import { type BackupIncludes, INCLUDE_FLAGS } from '../../contracts/backups/events.js';

export const MANIFEST_NAME = 'manifest.json';
export const EVENT_LOG_NAME = 'events.ndjson';
export const ARCHIVE_FORMAT = 'collections-backend-backup';
/**
 * Version 2 added the read side's SQLite files under read-side/ (part db). A version 1 archive
 * has none and still restores: the start then replays its log.
 */
export const ARCHIVE_FORMAT_VERSION = 2;
const READABLE_FORMAT_VERSIONS: readonly unknown[] = [1, 2];
/** Snapshots of the read side's SQLite files, by their path inside DATA_DIR (infra/read-side-files.ts). */
export const READ_SIDE_PREFIX = 'read-side/';

export type PartName = 'db' | 'files' | 'themes' | 'modules' | 'api';

/** Which include flag decides each part, and the folder its entries live under in the archive. */
export const PARTS: readonly { name: PartName; flag: keyof BackupIncludes; prefix: string }[] = [
  { name: 'db', flag: 'include_db', prefix: EVENT_LOG_NAME },
  { name: 'files', flag: 'include_files', prefix: 'files/' },
  { name: 'themes', flag: 'include_themes', prefix: 'themes/' },
  { name: 'modules', flag: 'include_modules', prefix: 'modules/' },
  { name: 'api', flag: 'include_api', prefix: 'api/' },
];

export interface ManifestEntry {
  path: string;
  part: PartName;
  size: number;
  sha256: string;
}

export interface PartSummary {
  included: boolean;
  entries: number;
  bytes: number;
}

/** manifest.json: what the archive holds, so a restore can check every byte before using it. */
export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  format_version: number;
  backup_module_version: string;
  backup_id: number | null;
  created_at: string;
  includes: BackupIncludes;
  parts: Record<PartName, PartSummary>;
  /**
   * Events in events.ndjson: the log up to and including last_position. With read-side
   * snapshots, last_position is read after they were taken, so it reaches every checkpoint in them.
   */
  event_count: number;
  last_position: number;
  entries: ManifestEntry[];
}

export function partOf(path: string): PartName | null {
  if (path.startsWith(READ_SIDE_PREFIX)) return 'db';
  for (const part of PARTS) {
    if (part.prefix.endsWith('/') ? path.startsWith(part.prefix) : path === part.prefix) return part.name;
  }
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const HEX64 = /^[0-9a-f]{64}$/;

/** Parses manifest.json and says what is wrong with it, in words a person restoring can act on. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('manifest.json is not valid JSON.');
  }
  if (!isObject(value) || value.format !== ARCHIVE_FORMAT)
    throw new Error('manifest.json does not describe a backup of this application.');
  if (!READABLE_FORMAT_VERSIONS.includes(value.format_version)) {
    throw new Error(
      `manifest.json has format version ${String(value.format_version)}; this restore reads versions ${READABLE_FORMAT_VERSIONS.join(' and ')}.`,
    );
  }
  const includes = value.includes;
  if (!isObject(includes) || INCLUDE_FLAGS.some((f) => typeof includes[f] !== 'boolean')) {
    throw new Error('manifest.json has no valid includes.');
  }
  if (!Number.isInteger(value.event_count) || !Number.isInteger(value.last_position))
    throw new Error('manifest.json has no valid event count.');
  const entries: unknown = value.entries;
  if (!Array.isArray(entries)) throw new Error('manifest.json lists no entries.');
  for (const entry of entries) {
    if (
      !isObject(entry) ||
      typeof entry.path !== 'string' ||
      partOf(entry.path) !== entry.part ||
      !Number.isInteger(entry.size) ||
      typeof entry.sha256 !== 'string' ||
      !HEX64.test(entry.sha256)
    ) {
      throw new Error(`manifest.json has an invalid entry: ${JSON.stringify(entry).slice(0, 200)}.`);
    }
  }
  // Checked above is what a restore relies on (the format, the parts included, the log's extent,
  // every entry's path, part, size and digest); the rest (backup id, dates, part summaries) is
  // shown as the archive says it, so the manifest is taken as written.
  return value as unknown as Manifest;
}
