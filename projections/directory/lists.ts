import type { LibraryListDefined } from '../../contracts/directory/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { defineProjection, type Projected } from '../projection.js';
import { DIRECTORY_COLLECTIONS } from './collections.js';

export interface ListDoc {
  _id: string;
  handle: string;
  name: string;
  databases: string[];
  [key: string]: unknown;
}

export const listDocs = (d: DocumentStore) => d.collection<ListDoc>(DIRECTORY_COLLECTIONS.lists);

/** Curated lists by handle, their databases in the list's order. */
export const listsProjection = defineProjection({
  name: 'directory-lists',
  handles: ['LibraryListDefined'],
  collection: listDocs,
  evolve(_document: ListDoc | null, event: Projected<LibraryListDefined>): ListDoc {
    const { handle, name, databases } = event.data;
    return { _id: handle, handle, name, databases: [...databases] };
  },
  documentId: (event) => event.data.handle,
});
