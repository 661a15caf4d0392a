import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { copyWith } from '../../infra/objects/copy-with.js';
import type { Upcasters } from '../../infra/event-store/upcast.js';
import type { ItemFields } from './fields.js';
import { ITEM_EVENTS } from './events.js';

/** What this reads of a stored ItemCreated or ItemUpdated: an object of fields (the rest passes as it is). */
const StoredItemData = Type.Object({ fields: Type.Object({}) });

const NO_RIGHTS: Pick<ItemFields, 'rights'> = { rights: null };

/**
 * `rights`, added to items' fields on 2026-12-07 (commit 095f95e): an item event stored without
 * it was written when items had no rights, or for an item given none, so the item had none.
 */
function itemRights(data: unknown): unknown {
  if (!Value.Check(StoredItemData, data) || 'rights' in data.fields) return data;
  return copyWith(data, { fields: copyWith(data.fields, NO_RIGHTS) });
}

/** The host platform's events that changed shape, brought to their current one (infra/event-store/upcast.ts). */
export const platformUpcasters: Upcasters = {
  [ITEM_EVENTS.created]: itemRights,
  [ITEM_EVENTS.updated]: itemRights,
};
