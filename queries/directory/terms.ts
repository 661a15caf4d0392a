import type { DocumentStore } from '../../infra/document-store/port.js';
import { databaseDocs, subjectDocs, typeDocs, type TermDoc } from '../../contracts/directory/documents.js';
import type { TermFields } from '../../contracts/directory/fields.js';
import { VISIBLE } from './databases.js';

export interface TermWithCount extends TermFields {
  /** Visible databases carrying the term; hidden ones are not counted. */
  database_count: number;
}

async function withCounts(
  terms: TermDoc[],
  documents: DocumentStore,
  field: 'subjects' | 'types',
): Promise<TermWithCount[]> {
  const visible = await databaseDocs(documents).find(VISIBLE);
  const counts = new Map<string, number>();
  for (const db of visible) for (const handle of db[field]) counts.set(handle, (counts.get(handle) ?? 0) + 1);
  return terms
    .map((t) => ({ handle: t.handle, name: t.name, database_count: counts.get(t.handle) ?? 0 }))
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.handle.localeCompare(b.handle));
}

/** Every subject, name A to Z, with its count of visible databases. */
export async function subjectsWithCounts(documents: DocumentStore): Promise<TermWithCount[]> {
  return withCounts(await subjectDocs(documents).find({}), documents, 'subjects');
}

/** Every database type, name A to Z, with its count of visible databases. */
export async function typesWithCounts(documents: DocumentStore): Promise<TermWithCount[]> {
  return withCounts(await typeDocs(documents).find({}), documents, 'types');
}
