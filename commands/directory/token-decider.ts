import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DirectoryTokenIssued, DirectoryTokenRevoked } from '../../contracts/directory/events.js';
import { normalizeOrigins } from '../../contracts/directory/values.js';
import { LIMITS, type TokenFields } from '../../contracts/directory/fields.js';

export interface TokenState {
  status: 'new' | 'active' | 'revoked';
  id: number;
}

export type IssueToken = DomainCommand<'IssueToken', { id: number; token_hash: string } & TokenFields>;
export type RevokeToken = DomainCommand<'RevokeToken', Record<string, never>>;
export type TokenCommand = IssueToken | RevokeToken;
export type TokenEvent = DirectoryTokenIssued | DirectoryTokenRevoked;

const SHA256_HEX = /^[0-9a-f]{64}$/;

function issue({ data }: IssueToken, state: TokenState): TokenEvent[] {
  if (state.status !== 'new') throw new ConflictError(`Token ${data.id} already exists.`);
  if (!SHA256_HEX.test(data.token_hash)) throw ValidationError.field('token', 'The token hash is malformed.');
  if (data.label.length > LIMITS.label)
    throw ValidationError.field('label', `Must be at most ${LIMITS.label} characters.`);
  const allowed_origins = normalizeOrigins(data.allowed_origins, 'allowed_origins');
  return [{ type: 'DirectoryTokenIssued', data: { ...data, allowed_origins } }];
}

function revoke(state: TokenState): TokenEvent[] {
  if (state.status !== 'active') throw new NotFoundError('Token not found.');
  return [{ type: 'DirectoryTokenRevoked', data: { id: state.id } }];
}

/** A directory API token: issued once with its allowed origins, revoked for good. Only its hash is kept. */
export const tokenDecider: Decider<TokenState, TokenCommand, TokenEvent> = {
  initialState: () => ({ status: 'new', id: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'DirectoryTokenIssued':
        return { status: 'active', id: event.data.id };
      case 'DirectoryTokenRevoked':
        return { ...state, status: 'revoked' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'IssueToken':
        return issue(command, state);
      case 'RevokeToken':
        return revoke(state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
