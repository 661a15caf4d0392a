import type { DocumentStore } from '../infra/document-store/port.js';
import type { Role } from '../commands/users/roles.js';

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

export function findUser(documents: DocumentStore, id: number): Promise<UserDoc | null> {
  return userDocs(documents).findOne({ _id: id });
}

export function findUserByEmail(documents: DocumentStore, email: string): Promise<UserDoc | null> {
  return userDocs(documents).findOne({ email: email.toLowerCase() });
}

export function findApiKey(documents: DocumentStore, identity: string): Promise<ApiKeyDoc | null> {
  return documents.collection<ApiKeyDoc>(API_KEYS).findOne({ _id: identity });
}

/** The display name of a user, '' when unknown (e.g. deleted or the system). */
export async function userName(documents: DocumentStore, id: number | null): Promise<string> {
  if (id === null) return '';
  return (await findUser(documents, id))?.name ?? '';
}
