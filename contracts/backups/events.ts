import type { DomainEvent } from '../domain-event.js';

/** The archive parts a backup may hold; every flag defaults to true. */
export interface BackupIncludes {
  include_db: boolean;
  include_files: boolean;
  include_themes: boolean;
  include_modules: boolean;
  include_api: boolean;
}

export const INCLUDE_FLAGS = [
  'include_db',
  'include_files',
  'include_themes',
  'include_modules',
  'include_api',
] as const;

/** How a backup's archive went: requested, then complete or failed, once. */
export type BackupStatus = 'in_progress' | 'complete' | 'failed';

export type BackupRequested = DomainEvent<
  'BackupRequested',
  {
    id: number;
    filename: string;
    path: string;
    storage: 'local';
    includes: BackupIncludes;
    created_by: number | null;
    /** ISO 8601, from the clock when the request arrived. */
    created_at: string;
    module_version: string;
  }
>;
export type BackupCompleted = DomainEvent<
  'BackupCompleted',
  { id: number; size: number; checksum: string; event_count: number }
>;
export type BackupFailed = DomainEvent<'BackupFailed', { id: number; error: string }>;
export type BackupDeleted = DomainEvent<'BackupDeleted', { id: number }>;
/**
 * Recorded by a restore for each backup whose archive is not in the restored data (an archive
 * never holds other backups): this installation cannot serve or restore it, so the record
 * leaves the list. The archive itself stays wherever the old installation kept it.
 */
export type BackupArchiveNotRestored = DomainEvent<'BackupArchiveNotRestored', { id: number; reason: string }>;

export type BackupEvent = BackupRequested | BackupCompleted | BackupFailed | BackupDeleted | BackupArchiveNotRestored;

export const BACKUP_EVENT_TYPES: readonly BackupEvent['type'][] = [
  'BackupRequested',
  'BackupCompleted',
  'BackupFailed',
  'BackupDeleted',
  'BackupArchiveNotRestored',
];

export const backupStream = (id: number) => `backup-${id}`;
