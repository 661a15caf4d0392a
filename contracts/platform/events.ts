import type { DomainEvent } from '../domain-event.js';

/*
 * The events of the host platform's resources (sites, item sets, items, media, site pages), as
 * their deciders append them (commands/platform/resource-decider.ts) and the read models fold
 * them. Each kind's events are named after it (`SitePageCreated`), so `Kind` is the kind's event
 * prefix, left as string to cover every kind.
 */

export type ResourceCreated<Fields, Kind extends string = string> = DomainEvent<
  `${Kind}Created`,
  { id: number; fields: Fields }
>;
/** `changed`: the keys whose value the update changed. */
export type ResourceUpdated<Fields, Kind extends string = string> = DomainEvent<
  `${Kind}Updated`,
  { id: number; fields: Fields; changed: string[] }
>;
export type ResourceDeleted<Kind extends string = string> = DomainEvent<`${Kind}Deleted`, { id: number }>;
/** The parent was deleted after the resource attached to it and before it was written: it never will be. */
export type ResourceWithdrawn<Kind extends string = string> = DomainEvent<
  `${Kind}Withdrawn`,
  { id: number; parent_id: number }
>;
/** A parent the resource had attached to (and since left, or was moving to) was deleted: nothing changes. */
export type ResourceDetached<Kind extends string = string> = DomainEvent<
  `${Kind}Detached`,
  { id: number; parent_id: number }
>;
export type ResourceEvent<Fields, Kind extends string = string> =
  | ResourceCreated<Fields, Kind>
  | ResourceUpdated<Fields, Kind>
  | ResourceDeleted<Kind>
  | ResourceWithdrawn<Kind>
  | ResourceDetached<Kind>;

export interface ResourceEventNames<Kind extends string = string> {
  created: `${Kind}Created`;
  updated: `${Kind}Updated`;
  deleted: `${Kind}Deleted`;
  withdrawn: `${Kind}Withdrawn`;
  detached: `${Kind}Detached`;
}

export function resourceEventNames<Kind extends string>(kind: Kind): ResourceEventNames<Kind> {
  return {
    created: `${kind}Created`,
    updated: `${kind}Updated`,
    deleted: `${kind}Deleted`,
    withdrawn: `${kind}Withdrawn`,
    detached: `${kind}Detached`,
  };
}

/**
 * Page version history (commands/page-versioning) appends this to a page's own stream: data
 * `{id, fields, reverted_to_version_id, summary}`, the page's full fields as they were restored.
 */
export const SITE_PAGE_REVERTED = 'SitePageReverted';

/**
 * The events a kind's read model folds into its document (projections/platform/resources.ts),
 * and so those that make its version, which If-Match names (commands/precondition.ts).
 */
export function versionedBy(
  events: { created: string; updated: string; deleted: string },
  ...more: string[]
): ReadonlySet<string> {
  return new Set([events.created, events.updated, events.deleted, ...more]);
}

export const SITE_EVENTS = resourceEventNames('Site');
export const ITEM_SET_EVENTS = resourceEventNames('ItemSet');
export const ITEM_EVENTS = resourceEventNames('Item');
export const MEDIA_EVENTS = resourceEventNames('Media');
export const SITE_PAGE_EVENTS = resourceEventNames('SitePage');
