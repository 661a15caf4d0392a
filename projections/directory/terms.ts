import type { DatabaseTypeDefined, SubjectDefined } from '../../commands/directory/events.js';
import { subjectDocs, typeDocs } from '../../queries/directory/documents.js';
import { defineProjection } from '../projection.js';

/** Subjects by handle. */
export const subjectsProjection = defineProjection({
  name: 'directory-subjects',
  handles: ['SubjectDefined'],
  async apply(stored, documents) {
    const { handle, name } = (stored as unknown as SubjectDefined).data;
    await subjectDocs(documents).put({ _id: handle, handle, name });
  },
});

/** Database types by handle. */
export const typesProjection = defineProjection({
  name: 'directory-types',
  handles: ['DatabaseTypeDefined'],
  async apply(stored, documents) {
    const { handle, name } = (stored as unknown as DatabaseTypeDefined).data;
    await typeDocs(documents).put({ _id: handle, handle, name });
  },
});
