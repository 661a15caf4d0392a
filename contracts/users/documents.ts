import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ApiKeyFields, UserFields } from './fields.js';

/*
 * The users' read model (projections/users/users.ts): users and their API keys, as sign-in,
 * author names and the commands read them (queries/users.ts).
 */

export interface UserDoc extends UserFields {
  _id: number;
  id: number;
  [key: string]: unknown;
}

export interface ApiKeyDoc extends ApiKeyFields {
  _id: string;
  userId: number;
  [key: string]: unknown;
}

export const USERS = 'users';
export const API_KEYS = 'api_keys';

/** Sign-in finds a user by email (the SQLite store indexes it). */
const USER_INDEXES = { indexes: ['email'] } as const;

export const userDocs = (documents: DocumentStore) => documents.collection<UserDoc>(USERS, USER_INDEXES);
