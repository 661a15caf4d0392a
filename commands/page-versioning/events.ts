import type { SitePageFields } from '../platform/fields.js';
import type { DomainCommand, DomainEvent } from '../decider.js';
import type { ResourceCommand, ResourceEvent } from '../platform/resource-decider.js';

/**
 * A page restored to the content of an earlier version. It goes to the page's own stream
 * (`site_page-{id}`), so the page's other writers see it and optimistic concurrency covers it.
 */
export type SitePageReverted = DomainEvent<
  'SitePageReverted',
  { id: number; fields: SitePageFields; reverted_to_version_id: number; summary: string }
>;

/** The version a revert goes back to: its id and when it was saved (`YYYY-MM-DD HH:MM:SS`). */
export interface RevertTarget {
  id: number;
  saved_at: string;
  /** The page's fields as that version saved them. */
  fields: SitePageFields;
}

/** summary: the editor's note; blank or absent means the default note. */
export type RevertSitePage = DomainCommand<'RevertSitePage', { target: RevertTarget; summary?: string | null }>;

export type SitePageCommand = ResourceCommand<SitePageFields> | RevertSitePage;
export type SitePageEvent = ResourceEvent<SitePageFields> | SitePageReverted;
