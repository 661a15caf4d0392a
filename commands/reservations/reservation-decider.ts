import { ConflictError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DomainEvent } from '../../contracts/domain-event.js';

/**
 * One unique key (a slug in its scope) as a stream of its own, `reservation-<key>`: whoever
 * appends KeyReserved at the stream's version holds the key, and the event store lets exactly
 * one of two racing writers do so, in one process or many. `owner` is the stream of the
 * resource that holds the key (`site-5`).
 */
export type KeyReserved = DomainEvent<'KeyReserved', { key: string; owner: string }>;
/** The owner let go of the key (renamed or deleted): it may be reserved again. */
export type KeyReleased = DomainEvent<'KeyReleased', { key: string; owner: string }>;
export type ReservationEvent = KeyReserved | KeyReleased;

/**
 * `abandonedBy`: the holder the handler judged abandoned (its reservation is old and the key is
 * in use nowhere): only that holder's reservation may be taken over.
 */
export type ReserveKey = DomainCommand<'ReserveKey', { key: string; owner: string; abandonedBy: string | null }>;
export type ReleaseKey = DomainCommand<'ReleaseKey', { key: string; owner: string }>;
export type ReservationCommand = ReserveKey | ReleaseKey;

export interface ReservationState {
  /** The owner holding the key, or null when it is free. */
  holder: string | null;
}

/** Another owner holds the key; the handler turns it into the caller's own refusal (the duplicate's 422). */
export class KeyHeldError extends ConflictError {
  constructor(
    readonly key: string,
    readonly holder: string,
  ) {
    super(`The key ${key} is held by ${holder}.`);
  }
}

function reserve({ data }: ReserveKey, state: ReservationState): ReservationEvent[] {
  const { key, owner, abandonedBy } = data;
  if (state.holder === owner) return [];
  if (state.holder !== null && state.holder !== abandonedBy) throw new KeyHeldError(key, state.holder);
  return [{ type: 'KeyReserved', data: { key, owner } }];
}

/** Only the holder lets go; anyone else's release is nothing to record. */
function release({ data }: ReleaseKey, state: ReservationState): ReservationEvent[] {
  const { key, owner } = data;
  return state.holder === owner ? [{ type: 'KeyReleased', data: { key, owner } }] : [];
}

/** The state depends on the last event alone, so a handler may fold just that one. */
export const reservationDecider: Decider<ReservationState, ReservationCommand, ReservationEvent> = {
  initialState: () => ({ holder: null }),

  evolve(_state, event) {
    switch (event.type) {
      case 'KeyReserved':
        return { holder: event.data.owner };
      case 'KeyReleased':
        return { holder: null };
      default: {
        const _exhaustive: never = event;
        return _state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'ReserveKey':
        return reserve(command, state);
      case 'ReleaseKey':
        return release(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
