import { ConflictError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import { mustExist, mustNotExist, newRecord, type RecordState } from '../decider-rules.js';
import type { BackupEvent, BackupRequested, BackupStatus } from '../../contracts/backups/events.js';

/** A request as its event carries it beside the id. */
export type BackupFields = Omit<BackupRequested['data'], 'id'>;

/** The record (requested, deleted) and, while it exists, how its archive went. */
export type BackupState = RecordState<BackupFields> & { progress: BackupStatus };

/** A request's fields come from the server (the file name, the clock), not from a caller, so there is no rule to check. */
export type RequestBackup = DomainCommand<'RequestBackup', BackupRequested['data']>;
export type CompleteBackup = DomainCommand<'CompleteBackup', { size: number; checksum: string; event_count: number }>;
export type FailBackup = DomainCommand<'FailBackup', { error: string }>;
export type DeleteBackup = DomainCommand<'DeleteBackup', Record<string, never>>;
export type BackupCommand = RequestBackup | CompleteBackup | FailBackup | DeleteBackup;

const LABEL = 'Backup';

function request({ data }: RequestBackup, state: BackupState): BackupEvent[] {
  const { id, ...fields } = data;
  mustNotExist(state, LABEL, id);
  return [{ type: 'BackupRequested', data: { id, ...fields } }];
}

/** Only a backup still in progress completes or fails. */
function mustBeInProgress(state: BackupState): void {
  mustExist(state, LABEL);
  if (state.progress !== 'in_progress') throw new ConflictError(`Backup ${state.id} is already ${state.progress}.`);
}

function complete({ data }: CompleteBackup, state: BackupState): BackupEvent[] {
  mustBeInProgress(state);
  return [{ type: 'BackupCompleted', data: { id: state.id, ...data } }];
}

function fail({ data }: FailBackup, state: BackupState): BackupEvent[] {
  mustBeInProgress(state);
  return [{ type: 'BackupFailed', data: { id: state.id, error: data.error } }];
}

/** Any existing record may be deleted, also one stuck in progress after a crash. */
function remove(state: BackupState): BackupEvent[] {
  mustExist(state, LABEL);
  return [{ type: 'BackupDeleted', data: { id: state.id } }];
}

/** A backup is requested (in_progress), then either completes or fails, once. */
export const backupDecider: Decider<BackupState, BackupCommand, BackupEvent> = {
  initialState: () => ({ ...newRecord<BackupFields>(), progress: 'in_progress' }),

  evolve(state, event) {
    switch (event.type) {
      case 'BackupRequested': {
        const { id, ...fields } = event.data;
        return { status: 'live', id, fields, progress: 'in_progress' };
      }
      case 'BackupCompleted':
        return { ...state, progress: 'complete' };
      case 'BackupFailed':
        return { ...state, progress: 'failed' };
      case 'BackupArchiveNotRestored':
        // The record leaves the list as if deleted: this installation cannot serve its archive.
        return { ...state, status: 'deleted' };
      case 'BackupDeleted':
        return { status: 'deleted', id: state.id, fields: state.fields, progress: state.progress };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'RequestBackup':
        return request(command, state);
      case 'CompleteBackup':
        return complete(command, state);
      case 'FailBackup':
        return fail(command, state);
      case 'DeleteBackup':
        return remove(state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
