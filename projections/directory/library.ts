import type { LibraryConfigured } from '../../commands/directory/events.js';
import { LIBRARY_DOC_ID, libraryDocs } from '../../queries/directory/documents.js';
import { defineProjection } from '../projection.js';

/** The library's settings: one document, rewritten whole by each LibraryConfigured. */
export const libraryProjection = defineProjection({
  name: 'directory-library',
  handles: ['LibraryConfigured'],
  async apply(stored, documents) {
    const event = stored as unknown as LibraryConfigured;
    await libraryDocs(documents).put({ ...event.data, _id: LIBRARY_DOC_ID });
  },
});
