import type { DocumentStore } from '../../infra/document-store/port.js';
import { isEditorOrAbove, type Role } from '../../contracts/users/roles.js';
import { sitePages } from '../../contracts/platform/documents.js';
import { userName } from '../users.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import { pageVersions, type PageVersionDoc } from '../../contracts/page-versioning/documents.js';

/** The seed's summary form of a version: the row's keys, the editor's name and the time it was saved. */
export interface VersionSummary extends Pick<
  PageVersionDoc,
  'id' | 'resource_id' | 'resource_type' | 'title' | 'slug' | 'operation' | 'editor_id' | 'summary'
> {
  editor_name: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  created_at: string;
}

export interface VersionPage {
  total: number;
  versions: VersionSummary[];
}

/** Names of the editors, each looked up once; '' for the system (imports) or an unknown user. */
async function editorNames(documents: DocumentStore, rows: PageVersionDoc[]): Promise<Map<number | null, string>> {
  const names = new Map<number | null, string>();
  for (const row of rows) {
    if (!names.has(row.editor_id)) names.set(row.editor_id, await userName(documents, row.editor_id));
  }
  return names;
}

function summaryOf(row: PageVersionDoc, names: Map<number | null, string>): VersionSummary {
  return {
    id: row.id,
    resource_id: row.resource_id,
    resource_type: row.resource_type,
    title: row.title,
    slug: row.slug,
    operation: row.operation,
    editor_id: row.editor_id,
    editor_name: names.get(row.editor_id) ?? '',
    summary: row.summary,
    created_at: sqlTimestamp(row.saved_at),
  };
}

export async function summarize(documents: DocumentStore, row: PageVersionDoc): Promise<VersionSummary> {
  return summaryOf(row, await editorNames(documents, [row]));
}

/** True when the page exists and the role may see it (private pages: Editor and above only). */
export async function pageReadableBy(documents: DocumentStore, pageId: number, role: Role): Promise<boolean> {
  const page = await sitePages(documents).findOne({ _id: pageId });
  return page !== null && (page.is_public || isEditorOrAbove(role));
}

/** A page's versions, newest first. */
export async function listVersions(
  documents: DocumentStore,
  pageId: number,
  { limit, offset }: { limit: number; offset: number },
): Promise<VersionPage> {
  const versions = pageVersions(documents);
  const total = await versions.count({ resource_id: pageId });
  const rows = await versions.find({ resource_id: pageId }, { sort: { _id: -1 }, skip: offset, limit });
  const names = await editorNames(documents, rows);
  return { total, versions: rows.map((row) => summaryOf(row, names)) };
}

export function findVersion(documents: DocumentStore, versionId: number): Promise<PageVersionDoc | null> {
  return pageVersions(documents).findOne({ _id: versionId });
}

/** The version of the same page saved just before this one, or null for its first version. */
export async function previousVersion(
  documents: DocumentStore,
  version: PageVersionDoc,
): Promise<PageVersionDoc | null> {
  const [row] = await pageVersions(documents).find(
    { resource_id: version.resource_id, _id: { $lt: version.id } },
    { sort: { _id: -1 }, limit: 1 },
  );
  return row ?? null;
}
