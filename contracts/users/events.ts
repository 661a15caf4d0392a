import type { DomainEvent } from '../domain-event.js';
import type { ApiKeyFields, UserFields } from './fields.js';

/** The users' events; a user's and a key's fields are declared in fields.ts. */
export type UserRegistered = DomainEvent<'UserRegistered', { id: number } & UserFields>;
export type ApiKeyCreated = DomainEvent<'ApiKeyCreated', { userId: number } & ApiKeyFields>;
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { userId: number; identity: string }>;

export type UserEvent = UserRegistered | ApiKeyCreated | ApiKeyRevoked;

export const userStream = (id: number) => `user-${id}`;
