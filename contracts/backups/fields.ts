import { Type, type Static, type TBoolean } from '@sinclair/typebox';
import { withDefault } from '../../infra/schema/record-fields.js';

/*
 * The parts a backup holds, each flag declared once: the request's event and the record carry
 * them (events.ts, documents.ts); the write body (commands/backups/schemas.ts), the command line
 * (bin/backup-flags.ts), the record's answer (routes/backups/representation.ts) and the
 * archive's manifest (workers/backups/manifest.ts) are derived from them. The descriptions are
 * those the API documents for the body.
 */

/** A part's flag: in unless the request says false. */
const flag = (what: string) =>
  withDefault(Type.Boolean({ default: true, description: `Include ${what} (default true).` }), true);

export const BackupIncludes = Type.Object({
  include_db: flag(
    'the complete event log, the source of truth, with snapshots of the read side (read models and their checkpoints, the embedding cache), so the restored server starts without a rebuild',
  ),
  include_files: flag('uploaded files'),
  include_themes: flag('the themes folder'),
  include_modules: flag('the modules folder'),
  include_api: flag('JSON exports of every list the API serves'),
});
export type BackupIncludes = Static<typeof BackupIncludes>;
export type IncludeFlag = keyof BackupIncludes;

function isIncludeFlag(key: string): key is IncludeFlag {
  return Object.hasOwn(BackupIncludes.properties, key);
}

/** The flags, in their order. */
export const INCLUDE_FLAGS: readonly IncludeFlag[] = Object.keys(BackupIncludes.properties).filter(isIncludeFlag);

/** The flags as a record or a manifest shows them: plain booleans, every one present. */
export const IncludesRecord = Type.Object(
  // Built flag by flag from INCLUDE_FLAGS: one boolean schema each, as the type says.
  Object.fromEntries(INCLUDE_FLAGS.map((key) => [key, Type.Boolean()])) as Record<IncludeFlag, TBoolean>,
);

/** How a backup's archive went: requested, then complete or failed, once. */
export const BACKUP_STATUSES = ['in_progress', 'complete', 'failed'] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];
