import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { BackupEvent, BackupRequested } from './events.js';

export type BackupStatus = 'in_progress' | 'complete' | 'failed';

export interface BackupState {
  status: 'none' | BackupStatus | 'deleted';
  id: number;
}

export type RequestBackup = DomainCommand<'RequestBackup', BackupRequested['data']>;
export type CompleteBackup = DomainCommand<'CompleteBackup', { size: number; checksum: string; event_count: number }>;
export type FailBackup = DomainCommand<'FailBackup', { error: string }>;
export type DeleteBackup = DomainCommand<'DeleteBackup', Record<string, never>>;
export type BackupCommand = RequestBackup | CompleteBackup | FailBackup | DeleteBackup;

function requireExisting(state: BackupState): void {
  if (state.status === 'none' || state.status === 'deleted') throw new NotFoundError('Backup not found.');
}

/**
 * A backup is requested (in_progress), then either completes or fails, once; any existing
 * record may be deleted, also one stuck in progress after a crash.
 */
export const backupDecider: Decider<BackupState, BackupCommand, BackupEvent> = {
  initialState: () => ({ status: 'none', id: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'BackupRequested':
        return { status: 'in_progress', id: event.data.id };
      case 'BackupCompleted':
        return { ...state, status: 'complete' };
      case 'BackupFailed':
        return { ...state, status: 'failed' };
      case 'BackupDeleted':
        return { ...state, status: 'deleted' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RequestBackup':
        if (state.status !== 'none') throw new ConflictError(`Backup ${command.data.id} already exists.`);
        return [{ type: 'BackupRequested', data: command.data }];
      case 'CompleteBackup':
        requireExisting(state);
        if (state.status !== 'in_progress') throw new ConflictError(`Backup ${state.id} is already ${state.status}.`);
        return [{ type: 'BackupCompleted', data: { id: state.id, ...command.data } }];
      case 'FailBackup':
        requireExisting(state);
        if (state.status !== 'in_progress') throw new ConflictError(`Backup ${state.id} is already ${state.status}.`);
        return [{ type: 'BackupFailed', data: { id: state.id, error: command.data.error } }];
      case 'DeleteBackup':
        requireExisting(state);
        return [{ type: 'BackupDeleted', data: { id: state.id } }];
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
