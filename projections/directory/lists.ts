import type { LibraryListDefined } from '../../commands/directory/events.js';
import { listDocs } from '../../queries/directory/documents.js';
import { defineProjection } from '../projection.js';

/** Curated lists by handle, their databases in the list's order. */
export const listsProjection = defineProjection({
  name: 'directory-lists',
  handles: ['LibraryListDefined'],
  async apply(stored, documents) {
    const { handle, name, databases } = (stored as unknown as LibraryListDefined).data;
    await listDocs(documents).put({ _id: handle, handle, name, databases: [...databases] });
  },
});
