import type { DomainEvent } from '../domain-event.js';

/*
 * The events of the scheduled backups' stream (its decider: commands/backups/schedule-decider.ts):
 * which runs were taken, and how each ended.
 */

export interface ScheduledBackupResult {
  /** ISO 8601: the run of BACKUP_SCHEDULE this backup was made for. */
  tick: string;
  /** The backup record, null when none could be recorded. */
  backup_id: number | null;
  status: 'complete' | 'failed';
  error: string | null;
}

/** A process took this run: no other makes its backup. */
export type ScheduledBackupClaimed = DomainEvent<'ScheduledBackupClaimed', { tick: string }>;
export type ScheduledBackupFinished = DomainEvent<'ScheduledBackupFinished', ScheduledBackupResult>;
export type ScheduleEvent = ScheduledBackupClaimed | ScheduledBackupFinished;
export const SCHEDULE_EVENT_TYPES: readonly ScheduleEvent['type'][] = [
  'ScheduledBackupClaimed',
  'ScheduledBackupFinished',
];
