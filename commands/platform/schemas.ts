import { Type, type Static } from '@sinclair/typebox';
import { fieldsOf, withoutDefault } from '../../infra/schema/record-fields.js';
import {
  ItemFields,
  ItemSetFields,
  MediaFields,
  PageBlock,
  SiteFields,
  SitePageFields,
} from '../../contracts/platform/fields.js';
import { bodyKey, ldBody } from './ld-body.js';
import { normalisedRights } from './rights.js';

/**
 * The host platform's write bodies, one per kind, in the representation's `o:` keys, derived from
 * the kinds' fields (contracts/platform/fields.ts, through ld-body.ts): the routes validate them
 * (routes/platform/resource-routes.ts) and turn them into the fields the handlers (handlers.ts)
 * write. Every key is optional: a create's required ones (the fields without a default) are
 * checked by `create`, whose 422 names each one missing; the deciders (kinds.ts) check what a
 * value means. Only the keys a body carries otherwise than as `o:<field>` are written here.
 */

export const Ref = Type.Object(
  { 'o:id': Type.Integer({ minimum: 1 }) },
  { additionalProperties: true, description: 'A record by its `o:id`; other keys (`@id`) are ignored.' },
);
export type RefInput = Static<typeof Ref>;

/** A representation read may be sent back: the keys a body does not list are accepted and ignored. */
const OPEN_BODY = {
  additionalProperties: true,
  description:
    'Only the keys listed are read; any other key (`@context`, `@id`, `o:id`, `o:created`, ...) is accepted and ignored. On a create a key left out takes its default; on an update it keeps its value.',
};

/** A list of ids, carried as references under `key`. */
function references<Key extends string>(key: Key, description: string) {
  return bodyKey(key, Type.Array(Ref, { description }), (refs) => refs.map((ref) => ref['o:id']));
}

/** An id, carried as a reference under `key`. */
function reference<Key extends string>(key: Key, description: string) {
  return bodyKey(key, { ...Ref, description }, (ref) => ref['o:id']);
}

/** POST, PUT and PATCH /api/sites. */
export const SiteBody = ldBody(SiteFields, {}, OPEN_BODY);

/** POST, PUT and PATCH /api/item_sets. */
export const ItemSetBody = ldBody(
  ItemSetFields,
  { site_ids: references('o:site', 'The sites it belongs to (replaces the list).') },
  OPEN_BODY,
);

/** `o:rights` as a body gives it: a URI checked and in its http:// form, null to remove it. */
const rights = bodyKey('o:rights', withoutDefault(ItemFields.properties.rights), (value) =>
  typeof value === 'string' ? normalisedRights(value) : value,
);

/** POST, PUT and PATCH /api/items. */
export const ItemBody = ldBody(
  ItemFields,
  {
    item_set_ids: references('o:item_set', 'The item sets it is in (replaces the list).'),
    site_ids: references('o:site', 'The sites it belongs to (replaces the list).'),
    rights,
  },
  OPEN_BODY,
);

/** POST, PUT and PATCH /api/media. */
export const MediaBody = ldBody(MediaFields, { item_id: reference('o:item', 'The item it belongs to.') }, OPEN_BODY);

/** A block of a page's body: its fields as `o:layout` (required) and `o:data`. */
const { layout, data } = PageBlock.properties;
const BlockBody = Type.Object(
  { 'o:layout': layout, 'o:data': Type.Optional(withoutDefault(data)) },
  { description: PageBlock.description },
);

/** POST, PUT and PATCH /api/site_pages. */
export const SitePageBody = ldBody(
  SitePageFields,
  {
    site_id: reference('o:site', 'The site the page is on.'),
    layout_data: bodyKey(
      'o:layout_data',
      Type.Union([withoutDefault(SitePageFields.properties.layout_data), Type.Null()], {
        description: "The layout's settings; null is `{}` (the default).",
      }),
      (value) => value ?? {},
    ),
    blocks: bodyKey(
      'o:block',
      Type.Array(BlockBody, { description: "The page's blocks, in order (replaces them all). Default none." }),
      (blocks) => blocks.map((block) => fieldsOf(PageBlock, { layout: block['o:layout'], data: block['o:data'] })),
    ),
  },
  OPEN_BODY,
);

export type SiteInput = Static<typeof SiteBody.schema>;
export type ItemSetInput = Static<typeof ItemSetBody.schema>;
export type ItemInput = Static<typeof ItemBody.schema>;
export type MediaInput = Static<typeof MediaBody.schema>;
export type SitePageInput = Static<typeof SitePageBody.schema>;
