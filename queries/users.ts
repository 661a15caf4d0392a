import type { DocumentStore } from '../infra/document-store/port.js';
import { API_KEYS, userDocs, type ApiKeyDoc, type UserDoc } from '../contracts/users/documents.js';

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
