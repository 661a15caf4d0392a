import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import { lifecycleDecider, type LifecycleCommandOf, type LifecycleState } from '../lifecycle-decider.js';
import type { BackupEvent, BackupRequested } from './events.js';

export type BackupStatus = 'in_progress' | 'complete' | 'failed';

/** A request as its event carries it beside the id. */
export type BackupFields = Omit<BackupRequested['data'], 'id'>;

/** The record's life cycle (requested, deleted) and, while it exists, how its archive went. */
export type BackupState = LifecycleState<BackupFields> & { progress: BackupStatus };

/**
 * A request is the life cycle's create and the delete its delete; a request's fields come from
 * the server (the file name, the clock), not from a caller, so there is no rule to check.
 */
const backupLifecycle = lifecycleDecider<BackupFields>()({
  names: { create: 'RequestBackup', delete: 'DeleteBackup', created: 'BackupRequested', deleted: 'BackupDeleted' },
  label: 'Backup',
  layout: 'flat',
  check: () => undefined,
});

type BackupLifecycleCommand = LifecycleCommandOf<typeof backupLifecycle>;
export type RequestBackup = Extract<BackupLifecycleCommand, { type: 'RequestBackup' }>;
export type DeleteBackup = Extract<BackupLifecycleCommand, { type: 'DeleteBackup' }>;
export type CompleteBackup = DomainCommand<'CompleteBackup', { size: number; checksum: string; event_count: number }>;
export type FailBackup = DomainCommand<'FailBackup', { error: string }>;
export type BackupCommand = BackupLifecycleCommand | CompleteBackup | FailBackup;

/** Only a backup still in progress completes or fails. */
function requireInProgress(state: BackupState): void {
  if (state.status !== 'live') throw new NotFoundError('Backup not found.');
  if (state.progress !== 'in_progress') throw new ConflictError(`Backup ${state.id} is already ${state.progress}.`);
}

/**
 * A backup is requested (in_progress), then either completes or fails, once; any existing
 * record may be deleted, also one stuck in progress after a crash.
 */
export const backupDecider: Decider<BackupState, BackupCommand, BackupEvent> = {
  initialState: () => ({ ...backupLifecycle.initialState(), progress: 'in_progress' }),
  evolve(state, event) {
    switch (event.type) {
      case 'BackupRequested':
        return Object.assign({}, backupLifecycle.evolve(state, event), { progress: 'in_progress' as const });
      case 'BackupCompleted':
        return { ...state, progress: 'complete' };
      case 'BackupFailed':
        return { ...state, progress: 'failed' };
      case 'BackupArchiveNotRestored':
        // The record leaves the list as if deleted: this installation cannot serve its archive.
        return { ...state, status: 'deleted' };
      case 'BackupDeleted':
        return Object.assign({}, backupLifecycle.evolve(state, event), { progress: state.progress });
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CompleteBackup':
        requireInProgress(state);
        return [{ type: 'BackupCompleted', data: { id: state.id, ...command.data } }];
      case 'FailBackup':
        requireInProgress(state);
        return [{ type: 'BackupFailed', data: { id: state.id, error: command.data.error } }];
      case 'RequestBackup':
      case 'DeleteBackup':
        return backupLifecycle.decide(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
