/**
 * The directory's read models as its queries read them: each document type and collection is
 * declared beside the projection that writes it (projections/directory/), and only named here.
 */
export { clickDocId, clickDocs, type ClickCountDoc } from '../../projections/directory/clicks.js';
export { DIRECTORY_COLLECTIONS } from '../../projections/directory/collections.js';
export { databaseDocs, type DatabaseDoc } from '../../projections/directory/databases.js';
export { LIBRARY_DOC_ID, libraryDocs, type LibraryDoc } from '../../projections/directory/library.js';
export { listDocs, type ListDoc } from '../../projections/directory/lists.js';
export { subjectDocs, typeDocs, type TermDoc } from '../../projections/directory/terms.js';
export { tokenDocs, type TokenDoc } from '../../projections/directory/tokens.js';
