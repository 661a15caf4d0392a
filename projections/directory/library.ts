import type { LibraryConfigured } from '../../contracts/directory/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { LIBRARY_DOC_ID, libraryDocs, type LibraryDoc } from '../../contracts/directory/documents.js';

/** The library's settings: one document, rewritten whole by each LibraryConfigured. */
export const libraryProjection = defineProjection({
  name: 'directory-library',
  handles: ['LibraryConfigured'],
  collection: libraryDocs,
  evolve: (_document: LibraryDoc | null, event: Projected<LibraryConfigured>): LibraryDoc =>
    copyWith(event.data, { _id: LIBRARY_DOC_ID }),
  documentId: () => LIBRARY_DOC_ID,
});
