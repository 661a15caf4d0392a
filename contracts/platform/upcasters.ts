import type { TObject } from '@sinclair/typebox';
import { fieldDefaultsUpcaster } from '../../infra/event-store/field-defaults.js';
import type { Upcasters } from '../../infra/event-store/upcast.js';
import { ItemFields, ItemSetFields, MediaFields, SiteFields, SitePageFields } from './fields.js';
import {
  ITEM_EVENTS,
  ITEM_SET_EVENTS,
  MEDIA_EVENTS,
  SITE_EVENTS,
  SITE_PAGE_EVENTS,
  SITE_PAGE_REVERTED,
  type ResourceEventNames,
} from './events.js';

/** A kind's events that carry its whole fields, each given the defaults of the fields it lacks. */
function kindUpcasters(events: ResourceEventNames, fields: TObject, ...more: string[]): Upcasters {
  const upcaster = fieldDefaultsUpcaster(fields);
  return Object.fromEntries([events.created, events.updated, ...more].map((type) => [type, upcaster]));
}

/**
 * The host platform's events brought to their current shape (infra/event-store/upcast.ts): a
 * field added to a kind's fields (fields.ts) with a default is given it in the events stored
 * before it, e.g. items' `rights` (2026-12-07, commit 095f95e): null, none.
 */
export const platformUpcasters: Upcasters = {
  ...kindUpcasters(SITE_EVENTS, SiteFields),
  ...kindUpcasters(ITEM_SET_EVENTS, ItemSetFields),
  ...kindUpcasters(ITEM_EVENTS, ItemFields),
  ...kindUpcasters(MEDIA_EVENTS, MediaFields),
  ...kindUpcasters(SITE_PAGE_EVENTS, SitePageFields, SITE_PAGE_REVERTED),
};
