import type { DatabaseTypeDefined, SubjectDefined } from '../../contracts/directory/events.js';
import { defineProjection, type Projected } from '../projection.js';
import { subjectDocs, typeDocs, type TermDoc } from '../../contracts/directory/documents.js';

const termOf = ({ handle, name }: { handle: string; name: string }): TermDoc => ({ _id: handle, handle, name });

/** Subjects by handle. */
export const subjectsProjection = defineProjection({
  name: 'directory-subjects',
  handles: ['SubjectDefined'],
  collection: subjectDocs,
  evolve: (_document: TermDoc | null, event: Projected<SubjectDefined>) => termOf(event.data),
  documentId: (event) => event.data.handle,
});

/** Database types by handle. */
export const typesProjection = defineProjection({
  name: 'directory-types',
  handles: ['DatabaseTypeDefined'],
  collection: typeDocs,
  evolve: (_document: TermDoc | null, event: Projected<DatabaseTypeDefined>) => termOf(event.data),
  documentId: (event) => event.data.handle,
});
