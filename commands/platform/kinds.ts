import { ValidationError } from '../../infra/errors.js';
import type { DomainEvent } from '../../contracts/domain-event.js';
import { normalisedRights } from './rights.js';
import { resourceDecider, type ResourceState } from './resource-decider.js';
import { SITE_PAGE_REVERTED } from '../../contracts/platform/events.js';
import {
  LIMITS,
  type ItemFields,
  type ItemSetFields,
  type MediaFields,
  type SiteFields,
  type SitePageFields,
} from '../../contracts/platform/fields.js';

const SLUG = /^[a-z0-9][a-z0-9_-]*$/i;

function requireText(value: string, field: string, max: number = LIMITS.title): void {
  if (!value.trim()) throw ValidationError.field(field, 'Must not be empty.');
  if (value.length > max) throw ValidationError.field(field, `Must be at most ${max} characters.`);
}

function requireSlug(value: string, field: string): void {
  requireText(value, field, LIMITS.slug);
  if (!SLUG.test(value)) throw ValidationError.field(field, 'Use letters, digits, "-" and "_" only.');
}

function requireIds(ids: number[], field: string): void {
  if (ids.some((id) => !Number.isInteger(id) || id < 1))
    throw ValidationError.field(field, 'Ids must be positive integers.');
}

export const siteDecider = resourceDecider<SiteFields>({
  kind: 'Site',
  label: 'Site',
  check(f) {
    requireSlug(f.slug, 'o:slug');
    requireText(f.title, 'o:title');
  },
});

export const itemSetDecider = resourceDecider<ItemSetFields>({
  kind: 'ItemSet',
  label: 'Item set',
  check(f) {
    requireText(f.title, 'o:title');
    requireIds(f.site_ids, 'o:site');
  },
});

export const itemDecider = resourceDecider<ItemFields>({
  kind: 'Item',
  label: 'Item',
  check(f) {
    requireText(f.title, 'o:title');
    if (f.rights !== null && normalisedRights(f.rights) !== f.rights)
      throw ValidationError.field('o:rights', 'Rights URIs are kept in their http:// form.');
    requireIds(f.item_set_ids, 'o:item_set');
    requireIds(f.site_ids, 'o:site');
  },
});

export const mediaDecider = resourceDecider<MediaFields>({
  kind: 'Media',
  label: 'Media',
  check(f) {
    requireText(f.title, 'o:title');
    requireIds([f.item_id], 'o:item');
  },
});

/** A page whose site does not exist (or is deleted before the page is written). */
export const siteMustExist = (): ValidationError => ValidationError.field('o:site', 'Every site must exist.');

/** Appended to a site's stream by each page created in it or moved to it (see commands/reservations/parent-decider.ts). */
export const SITE_PAGE_ATTACHED = 'SitePageAttached';

/**
 * A page's revert as the platform folds it: the page's full fields, which page version history
 * appends to the page's stream (its whole event is SitePageReverted, contracts/page-versioning/events.ts).
 */
type SitePageRevertedFields = DomainEvent<typeof SITE_PAGE_REVERTED, { id: number; fields: SitePageFields }>;

/** A live page takes the fields a revert restored; the platform and page version history both fold it so. */
export function revertedPage(
  state: ResourceState<SitePageFields>,
  data: { fields: SitePageFields },
): ResourceState<SitePageFields> {
  return state.status === 'live' ? { ...state, fields: data.fields } : state;
}

export const sitePageDecider = resourceDecider<SitePageFields, string, SitePageRevertedFields>({
  kind: 'SitePage',
  label: 'Site page',
  check(f) {
    requireSlug(f.slug, 'o:slug');
    requireText(f.title, 'o:title');
    requireIds([f.site_id], 'o:site');
    f.blocks.forEach((block, index) => {
      if (!block.layout?.trim()) throw ValidationError.field('o:block', `Block ${index + 1} needs a layout.`);
    });
  },
  parent: { field: 'site_id', refuse: siteMustExist },
  evolveOther: (state, event) => (event.type === SITE_PAGE_REVERTED ? revertedPage(state, event.data) : state),
});

export const siteStream = (id: number) => `site-${id}`;
export const itemSetStream = (id: number) => `item_set-${id}`;
export const itemStream = (id: number) => `item-${id}`;
export const mediaStream = (id: number) => `media-${id}`;
export const sitePageStream = (id: number) => `site_page-${id}`;
