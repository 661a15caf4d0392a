import { Type, type Static } from '@sinclair/typebox';
import { IncludesRecord, type BackupIncludes } from '../../contracts/backups/fields.js';
import { checked } from '../../infra/checked-json.js';

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

const PartNameSchema = Type.Union([
  Type.Literal('db'),
  Type.Literal('files'),
  Type.Literal('themes'),
  Type.Literal('modules'),
  Type.Literal('api'),
]);
export type PartName = Static<typeof PartNameSchema>;

/** Which include flag decides each part, and the folder its entries live under in the archive. */
export const PARTS: readonly { name: PartName; flag: keyof BackupIncludes; prefix: string }[] = [
  { name: 'db', flag: 'include_db', prefix: EVENT_LOG_NAME },
  { name: 'files', flag: 'include_files', prefix: 'files/' },
  { name: 'themes', flag: 'include_themes', prefix: 'themes/' },
  { name: 'modules', flag: 'include_modules', prefix: 'modules/' },
  { name: 'api', flag: 'include_api', prefix: 'api/' },
];

const ManifestEntrySchema = Type.Object({
  path: Type.String(),
  part: PartNameSchema,
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
export type ManifestEntry = Static<typeof ManifestEntrySchema>;

const PartSummarySchema = Type.Object({
  included: Type.Boolean(),
  entries: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
});
export type PartSummary = Static<typeof PartSummarySchema>;

/** The flags of BackupIncludes (contracts/backups/fields.ts), every one present. */
const IncludesSchema = IncludesRecord;

/**
 * manifest.json: what the archive holds, so a restore can check every byte before using it.
 * `event_count` events are in events.ndjson: the log up to and including `last_position`. With
 * read-side snapshots, last_position is read after they were taken, so it reaches every
 * checkpoint in them. An archive comes from outside the process: parseManifest checks it
 * against this schema, whose Static type Manifest is.
 */
const ManifestSchema = Type.Object({
  format: Type.Literal(ARCHIVE_FORMAT),
  format_version: Type.Integer(),
  backup_module_version: Type.String(),
  backup_id: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String(),
  includes: IncludesSchema,
  parts: Type.Object({
    db: PartSummarySchema,
    files: PartSummarySchema,
    themes: PartSummarySchema,
    modules: PartSummarySchema,
    api: PartSummarySchema,
  }),
  event_count: Type.Integer({ minimum: 0 }),
  last_position: Type.Integer({ minimum: 0 }),
  entries: Type.Array(ManifestEntrySchema),
});
export type Manifest = Static<typeof ManifestSchema>;

export function partOf(path: string): PartName | null {
  if (path.startsWith(READ_SIDE_PREFIX)) return 'db';
  for (const part of PARTS) {
    if (part.prefix.endsWith('/') ? path.startsWith(part.prefix) : path === part.prefix) return part.name;
  }
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Parses manifest.json and says what is wrong with it, in words a person restoring can act on. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('manifest.json is not valid JSON.');
  }
  // The format and its version first: another file, or a later format, is told as such.
  if (!isObject(value) || value.format !== ARCHIVE_FORMAT)
    throw new Error('manifest.json does not describe a backup of this application.');
  if (!READABLE_FORMAT_VERSIONS.includes(value.format_version)) {
    throw new Error(
      `manifest.json has format version ${String(value.format_version)}; this restore reads versions ${READABLE_FORMAT_VERSIONS.join(' and ')}.`,
    );
  }
  const manifest = checked(ManifestSchema, value);
  if (!manifest.ok) throw new Error(`manifest.json is not a valid manifest: ${manifest.problem}.`);
  manifest.value.entries.forEach((entry, index) => {
    if (partOf(entry.path) !== entry.part)
      throw new Error(
        `manifest.json is not a valid manifest: /entries/${index}: ${entry.path} is not in part ${entry.part}.`,
      );
  });
  return manifest.value;
}
