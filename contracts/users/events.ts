import type { DomainEvent } from '../domain-event.js';
import type { Role } from './roles.js';

export type UserRegistered = DomainEvent<
  'UserRegistered',
  { id: number; email: string; name: string; role: Role; passwordHash: string | null }
>;
export type ApiKeyCreated = DomainEvent<
  'ApiKeyCreated',
  { userId: number; identity: string; credentialHash: string; label: string }
>;
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { userId: number; identity: string }>;

export type UserEvent = UserRegistered | ApiKeyCreated | ApiKeyRevoked;

export const userStream = (id: number) => `user-${id}`;
