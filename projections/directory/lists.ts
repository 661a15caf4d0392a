import type { LibraryListDefined } from '../../contracts/directory/events.js';
import { defineProjection, type Projected } from '../projection.js';
import { listDocs, type ListDoc } from '../../contracts/directory/documents.js';

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
