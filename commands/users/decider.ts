import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { UserEvent } from './events.js';
import { isRole, type Role } from './roles.js';

export interface UserState {
  exists: boolean;
  id: number;
  apiKeys: Set<string>;
}

export type RegisterUser = DomainCommand<
  'RegisterUser',
  { id: number; email: string; name: string; role: Role; passwordHash: string | null }
>;
export type CreateApiKey = DomainCommand<'CreateApiKey', { identity: string; credentialHash: string; label: string }>;
export type RevokeApiKey = DomainCommand<'RevokeApiKey', { identity: string }>;
export type UserCommand = RegisterUser | CreateApiKey | RevokeApiKey;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

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
      case 'RegisterUser': {
        if (state.exists) throw new ConflictError(`User ${command.data.id} already exists.`);
        if (!EMAIL.test(command.data.email)) throw ValidationError.field('email', 'Must be an email address.');
        if (!command.data.name.trim()) throw ValidationError.field('name', 'Must not be empty.');
        if (!isRole(command.data.role)) throw ValidationError.field('role', 'Unknown role.');
        return [{ type: 'UserRegistered', data: { ...command.data, email: command.data.email.toLowerCase() } }];
      }
      case 'CreateApiKey': {
        if (!state.exists) throw new NotFoundError('User not found.');
        if (state.apiKeys.has(command.data.identity)) throw new ConflictError('An API key with this identity exists.');
        if (!command.data.identity) throw ValidationError.field('identity', 'Must not be empty.');
        return [{ type: 'ApiKeyCreated', data: { userId: state.id, ...command.data } }];
      }
      case 'RevokeApiKey': {
        if (!state.exists) throw new NotFoundError('User not found.');
        if (!state.apiKeys.has(command.data.identity)) throw new NotFoundError('API key not found.');
        return [{ type: 'ApiKeyRevoked', data: { userId: state.id, identity: command.data.identity } }];
      }
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
