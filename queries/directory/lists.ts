import type { DocumentStore } from '../../infra/document-store/port.js';
import { visibleDatabasesInOrder, type DatabaseView } from './databases.js';
import { listDocs } from '../../contracts/directory/documents.js';
import type { ListFields, TermFields } from '../../contracts/directory/fields.js';

export interface ListView extends Omit<ListFields, 'databases'> {
  databases: DatabaseView[];
}

/** A curated list with its visible databases in the list's order, or null when unknown. */
export async function findList(documents: DocumentStore, handle: string): Promise<ListView | null> {
  const list = await listDocs(documents).findOne({ _id: handle });
  if (!list) return null;
  return { handle: list.handle, name: list.name, databases: await visibleDatabasesInOrder(documents, list.databases) };
}

/** Every list's handle and name, name A to Z. */
export async function listSummaries(documents: DocumentStore): Promise<TermFields[]> {
  const lists = await listDocs(documents).find({});
  return lists
    .map((l) => ({ handle: l.handle, name: l.name }))
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.handle.localeCompare(b.handle));
}
