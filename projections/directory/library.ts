import type { LibraryConfigured, LibrarySettings } from '../../contracts/directory/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { DIRECTORY_COLLECTIONS } from './collections.js';

export const LIBRARY_DOC_ID = 'library';

export type LibraryDoc = LibrarySettings & { _id: string; [key: string]: unknown };

export const libraryDocs = (d: DocumentStore) => d.collection<LibraryDoc>(DIRECTORY_COLLECTIONS.library);

/** The library's settings: one document, rewritten whole by each LibraryConfigured. */
export const libraryProjection = defineProjection({
  name: 'directory-library',
  handles: ['LibraryConfigured'],
  collection: libraryDocs,
  evolve: (_document: LibraryDoc | null, event: Projected<LibraryConfigured>): LibraryDoc =>
    copyWith(event.data, { _id: LIBRARY_DOC_ID }),
  documentId: () => LIBRARY_DOC_ID,
});
