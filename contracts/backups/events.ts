import type { DomainEvent } from '../domain-event.js';
import type { BackupStorageKind } from '../../infra/backup-archives/port.js';
import type { BackupIncludes } from './fields.js';

/** The parts a backup holds and its statuses are declared in fields.ts. */
export { INCLUDE_FLAGS, type BackupIncludes, type BackupStatus } from './fields.js';

/** What a backup's request records: the record as it is before its archive is made. */
export interface BackupRequest {
  id: number;
  filename: string;
  /** Where the archive was put when requested (BackupArchives.location). */
  path: string;
  /** The store it was put in: `local` (DATA_DIR/backups), `postgresql` (FILES_URL's database). */
  storage: BackupStorageKind;
  includes: BackupIncludes;
  created_by: number | null;
  /** ISO 8601, from the clock when the request arrived. */
  created_at: string;
  module_version: string;
}

/** What a finished archive adds to its record. */
export interface BackupArchive {
  /** Bytes. */
  size: number;
  /** `sha256:<hex>` of the archive file. */
  checksum: string;
  event_count: number;
}

export type BackupRequested = DomainEvent<'BackupRequested', BackupRequest>;
export type BackupCompleted = DomainEvent<'BackupCompleted', { id: number } & BackupArchive>;
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
