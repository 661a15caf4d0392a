import type { FastifyInstance } from 'fastify';
import type { BackupDoc } from './documents.js';
import type { BackupIncludes } from './events.js';

export interface BackupOrder {
  /** Who asked: a user id, or null for the command line and the schedule. */
  userId: number | null;
  requestId?: string;
  includes: BackupIncludes;
  logger: { warn(details: object, message: string): void; error(details: object, message: string): void };
}

/** How a backup's archive job ended. */
export interface BackupJobResult {
  status: 'complete' | 'failed';
  error?: string;
}

export interface BackupMade {
  id: number;
  outcome: BackupJobResult;
  /** The record as this process's read models hold it once the job is over. */
  record: BackupDoc | null;
  /** Older complete backups retention deleted after this one. */
  expired: BackupDoc[];
}

/**
 * What the backup routes (routes/backups/) ask of the backups module's worker: the worker
 * implements it (workers/backups/backup-service.ts) and the module wires it (app/modules/backups.ts),
 * so the routes import nothing from workers/.
 */
export interface BackupService {
  /** The app the archive's API export reads through: the one the routes are registered on. */
  attach(app: FastifyInstance): void;
  /** One backup through the job queue, waited for: the job's outcome and the record once it is over. */
  make(order: BackupOrder): Promise<BackupMade>;
  /** Removes a record's archive and checksum file, once its deletion is recorded. */
  removeArchive(record: BackupDoc): Promise<void>;
  /** The record's `o:path`: where its store keeps the archive, without credentials. */
  archiveLocation(record: BackupDoc): string;
}
