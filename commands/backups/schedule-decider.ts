import { ConflictError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { ScheduledBackupResult, ScheduleEvent } from '../../contracts/backups/schedule-events.js';

/** The stream of the scheduled backups: which runs were taken, and how each ended. */
export const BACKUP_SCHEDULE_STREAM = 'backup_schedule';

export type ClaimScheduledBackup = DomainCommand<'ClaimScheduledBackup', { tick: string }>;
export type FinishScheduledBackup = DomainCommand<'FinishScheduledBackup', ScheduledBackupResult>;
export type ScheduleCommand = ClaimScheduledBackup | FinishScheduledBackup;

export interface ScheduleState {
  /** The latest run claimed, ISO 8601; null before the first. */
  lastTick: string | null;
  finished: boolean;
}

/** A run at or before the latest claimed was taken already. */
function claim({ data }: ClaimScheduledBackup, state: ScheduleState): ScheduleEvent[] {
  if (state.lastTick !== null && data.tick <= state.lastTick) {
    throw new ConflictError(
      `The scheduled backup of ${data.tick} was already taken (the latest run taken is ${state.lastTick}).`,
    );
  }
  return [{ type: 'ScheduledBackupClaimed', data: { tick: data.tick } }];
}

/** Only the run in progress finishes, once. */
function finish({ data }: FinishScheduledBackup, state: ScheduleState): ScheduleEvent[] {
  if (data.tick !== state.lastTick || state.finished) {
    throw new ConflictError(`The scheduled backup of ${data.tick} is not the one in progress.`);
  }
  return [{ type: 'ScheduledBackupFinished', data }];
}

/**
 * One backup per run of the schedule, however many processes are told of it (every embedded
 * server's timer, a BullMQ job delivered again): a run is claimed once, and never one at or
 * before the latest claimed, so a run missed while everything was down is not made up twice.
 * ISO 8601 times in UTC compare as text.
 */
export const scheduleDecider: Decider<ScheduleState, ScheduleCommand, ScheduleEvent> = {
  initialState: () => ({ lastTick: null, finished: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'ScheduledBackupClaimed':
        return { lastTick: event.data.tick, finished: false };
      case 'ScheduledBackupFinished':
        return event.data.tick === state.lastTick ? { ...state, finished: true } : state;
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ClaimScheduledBackup':
        return claim(command, state);
      case 'FinishScheduledBackup':
        return finish(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
