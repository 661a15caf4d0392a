import type { UserEvent } from '../../contracts/users/events.js';
import type { Role } from '../../contracts/users/roles.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { defineHandlerProjection, type Projected } from '../projection.js';

export interface UserDoc {
  _id: number;
  id: number;
  email: string;
  name: string;
  role: Role;
  passwordHash: string | null;
  [key: string]: unknown;
}

export interface ApiKeyDoc {
  _id: string;
  identity: string;
  userId: number;
  credentialHash: string;
  label: string;
  [key: string]: unknown;
}

export const USERS = 'users';
export const API_KEYS = 'api_keys';

/** Sign-in finds a user by email (the SQLite store indexes it). */
const USER_INDEXES = { indexes: ['email'] } as const;

export const userDocs = (documents: DocumentStore) => documents.collection<UserDoc>(USERS, USER_INDEXES);

/** Users and their API keys, for authentication and author names: two collections, so the escape hatch. */
export const usersProjection = defineHandlerProjection({
  name: 'users',
  handles: ['UserRegistered', 'ApiKeyCreated', 'ApiKeyRevoked'],
  async handle(event: Projected<UserEvent>, documents) {
    switch (event.type) {
      case 'UserRegistered':
        await documents.collection<UserDoc>(USERS).put({ _id: event.data.id, ...event.data });
        return;
      case 'ApiKeyCreated':
        await documents.collection<ApiKeyDoc>(API_KEYS).put({
          _id: event.data.identity,
          identity: event.data.identity,
          userId: event.data.userId,
          credentialHash: event.data.credentialHash,
          label: event.data.label,
        });
        return;
      case 'ApiKeyRevoked':
        await documents.collection<ApiKeyDoc>(API_KEYS).deleteOne({ _id: event.data.identity });
        return;
    }
  },
});
