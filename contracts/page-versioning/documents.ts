import type { DocumentStore } from '../../infra/document-store/port.js';
import type { SitePageFields } from '../platform/fields.js';

/*
 * Page version history's read model (projections/page-versioning/versions.ts): the version list,
 * as queries/page-versioning/ and the revert read it.
 */

/** What made a version: the page's create, an update, or a revert to an earlier version. */
export const VERSION_OPERATIONS = ['create', 'update', 'revert'] as const;
export type VersionOperation = (typeof VERSION_OPERATIONS)[number];

/**
 * One saved version of a site page, as the version list shows it. The id is the global log
 * position of the event that made the version: unique across pages, increasing with time, and
 * the same after every restart or replay. The content is not stored here: reading a version
 * replays the page's stream up to `stream_version`.
 */
export interface PageVersionDoc extends Pick<SitePageFields, 'title' | 'slug'> {
  _id: number;
  id: number;
  resource_id: number;
  resource_type: 'site_page';
  /** The page stream's length once this version was saved. */
  stream_version: number;
  operation: VersionOperation;
  editor_id: number | null;
  summary: string | null;
  /** ISO 8601, from the event's metadata. */
  saved_at: string;
  [key: string]: unknown;
}

export const PAGE_VERSIONS = 'page_versions';

/** A page's versions, and one by stream version (the SQLite store indexes them). */
const VERSION_INDEXES = { indexes: [['resource_id', 'stream_version']] } as const;

export const pageVersions = (documents: DocumentStore) =>
  documents.collection<PageVersionDoc>(PAGE_VERSIONS, VERSION_INDEXES);
