import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { UserEvent } from '../../contracts/users/events.js';
import { isRole } from '../../contracts/users/roles.js';
import { EMAIL_PATTERN, type ApiKeyFields, type UserFields } from '../../contracts/users/fields.js';

export interface UserState {
  exists: boolean;
  id: number;
  apiKeys: Set<string>;
}

export type RegisterUser = DomainCommand<'RegisterUser', { id: number } & UserFields>;
export type CreateApiKey = DomainCommand<'CreateApiKey', ApiKeyFields>;
export type RevokeApiKey = DomainCommand<'RevokeApiKey', { identity: string }>;
export type UserCommand = RegisterUser | CreateApiKey | RevokeApiKey;

const EMAIL = new RegExp(EMAIL_PATTERN);

function register({ data }: RegisterUser, state: UserState): UserEvent[] {
  if (state.exists) throw new ConflictError(`User ${data.id} already exists.`);
  if (!EMAIL.test(data.email)) throw ValidationError.field('email', 'Must be an email address.');
  if (!data.name.trim()) throw ValidationError.field('name', 'Must not be empty.');
  if (!isRole(data.role)) throw ValidationError.field('role', 'Unknown role.');
  return [{ type: 'UserRegistered', data: { ...data, email: data.email.toLowerCase() } }];
}

function mustBeRegistered(state: UserState): void {
  if (!state.exists) throw new NotFoundError('User not found.');
}

function createApiKey({ data }: CreateApiKey, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (state.apiKeys.has(data.identity)) throw new ConflictError('An API key with this identity exists.');
  if (!data.identity) throw ValidationError.field('identity', 'Must not be empty.');
  return [{ type: 'ApiKeyCreated', data: { userId: state.id, ...data } }];
}

function revokeApiKey({ data }: RevokeApiKey, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (!state.apiKeys.has(data.identity)) throw new NotFoundError('API key not found.');
  return [{ type: 'ApiKeyRevoked', data: { userId: state.id, identity: data.identity } }];
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false, id: 0, apiKeys: new Set() }),

  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { exists: true, id: event.data.id, apiKeys: new Set() };
      case 'ApiKeyCreated':
        return { ...state, apiKeys: new Set([...state.apiKeys, event.data.identity]) };
      case 'ApiKeyRevoked': {
        const apiKeys = new Set(state.apiKeys);
        apiKeys.delete(event.data.identity);
        return { ...state, apiKeys };
      }
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser':
        return register(command, state);
      case 'CreateApiKey':
        return createApiKey(command, state);
      case 'RevokeApiKey':
        return revokeApiKey(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
