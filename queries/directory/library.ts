import type { DocumentStore } from '../../infra/document-store/port.js';
import { LIBRARY_DOC_ID, libraryDocs, type LibraryDoc } from '../../contracts/directory/documents.js';

/** The library's settings, or null before it is configured. */
export function findLibrary(documents: DocumentStore): Promise<LibraryDoc | null> {
  return libraryDocs(documents).findOne({ _id: LIBRARY_DOC_ID });
}
