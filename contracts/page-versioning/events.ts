import type { SitePageFields } from '../platform/fields.js';
import type { DomainEvent } from '../domain-event.js';
import type { ResourceEvent } from '../platform/events.js';

/**
 * A page restored to the content of an earlier version. It goes to the page's own stream
 * (`site_page-{id}`), so the page's other writers see it and optimistic concurrency covers it.
 */
export type SitePageReverted = DomainEvent<
  'SitePageReverted',
  { id: number; fields: SitePageFields; reverted_to_version_id: number; summary: string }
>;

export type SitePageEvent = ResourceEvent<SitePageFields> | SitePageReverted;
