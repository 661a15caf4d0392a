import type { DocumentStore, Filter } from '../../infra/document-store/port.js';
import type { DatabaseFields, TermFields } from '../../contracts/directory/fields.js';
import { databaseDocs, subjectDocs, typeDocs, type DatabaseDoc } from '../../contracts/directory/documents.js';

export type TermRef = TermFields;

/** A database as patrons may see it: no URL (links go through the tracked redirect), no hidden flag. */
export interface DatabaseView extends Pick<
  DatabaseFields,
  'name' | 'description' | 'access' | 'audience' | 'featured'
> {
  handle: string;
  subjects: TermRef[];
  types: TermRef[];
}

export interface DatabaseSearch {
  q?: string;
  subject?: string;
  type?: string;
  access?: string;
  audience?: string;
  featuredOnly?: boolean;
}

/** Only what patrons can already see is ever returned: every query starts from this. */
export const VISIBLE: Filter = { hidden: { $ne: true } };
const ORDER = { sort_name: 1, handle: 1 } as const;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function searchFilter(search: DatabaseSearch): Filter {
  const filter: Filter = { ...VISIBLE };
  if (search.subject !== undefined) filter.subjects = search.subject;
  if (search.type !== undefined) filter.types = search.type;
  if (search.access !== undefined) filter.access = search.access;
  if (search.audience !== undefined) filter.audience = search.audience;
  if (search.featuredOnly) filter.featured = true;
  const q = search.q?.trim();
  if (q) {
    const pattern = { $regex: escapeRegex(q), $options: 'i' };
    filter.$or = [{ name: pattern }, { description: pattern }];
  }
  return filter;
}

async function termNames(
  documents: DocumentStore,
): Promise<{ subjects: Map<string, string>; types: Map<string, string> }> {
  const [subjects, types] = await Promise.all([subjectDocs(documents).find({}), typeDocs(documents).find({})]);
  return {
    subjects: new Map(subjects.map((s) => [s.handle, s.name])),
    types: new Map(types.map((t) => [t.handle, t.name])),
  };
}

function toView(doc: DatabaseDoc, names: Awaited<ReturnType<typeof termNames>>): DatabaseView {
  const refs = (handles: string[], map: Map<string, string>) =>
    handles.flatMap((handle) => {
      const name = map.get(handle);
      return name === undefined ? [] : [{ handle, name }];
    });
  return {
    handle: doc.handle,
    name: doc.name,
    description: doc.description,
    subjects: refs(doc.subjects, names.subjects),
    types: refs(doc.types, names.types),
    access: doc.access,
    audience: [...doc.audience],
    featured: doc.featured,
  };
}

/** One page of visible databases matching the search, name A to Z (case-insensitive), and the total. */
export async function searchDatabases(
  documents: DocumentStore,
  search: DatabaseSearch,
  window: { skip: number; limit: number },
): Promise<{ databases: DatabaseView[]; total: number }> {
  const filter = searchFilter(search);
  const [docs, total, names] = await Promise.all([
    databaseDocs(documents).find(filter, { sort: ORDER, skip: window.skip, limit: window.limit }),
    databaseDocs(documents).count(filter),
    termNames(documents),
  ]);
  return { databases: docs.map((doc) => toView(doc, names)), total };
}

/** A visible database by handle, or null (hidden and unknown ones alike). */
export async function findVisibleDatabaseDoc(documents: DocumentStore, handle: string): Promise<DatabaseDoc | null> {
  const doc = await databaseDocs(documents).findOne({ _id: handle });
  return doc && !doc.hidden ? doc : null;
}

export async function findVisibleDatabase(documents: DocumentStore, handle: string): Promise<DatabaseView | null> {
  const doc = await findVisibleDatabaseDoc(documents, handle);
  return doc ? toView(doc, await termNames(documents)) : null;
}

/** Visible databases by handle in the order given; hidden and unknown handles are dropped. */
export async function visibleDatabasesInOrder(documents: DocumentStore, handles: string[]): Promise<DatabaseView[]> {
  const [docs, names] = await Promise.all([
    databaseDocs(documents).find({ ...VISIBLE, _id: { $in: handles } }),
    termNames(documents),
  ]);
  const byHandle = new Map(docs.map((doc) => [doc.handle, doc]));
  return handles.flatMap((handle) => {
    const doc = byHandle.get(handle);
    return doc ? [toView(doc, names)] : [];
  });
}

export function countVisibleDatabases(documents: DocumentStore): Promise<number> {
  return databaseDocs(documents).count(VISIBLE);
}
