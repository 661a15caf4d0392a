import { Type, type Static } from '@sinclair/typebox';
import { ITEM, ITEM_SET, MEDIA, SITE, SITE_PAGE } from '../../commands/platform/handlers.js';
import {
  LIMITS,
  type ItemFields,
  type ItemSetFields,
  type MediaFields,
  type SiteFields,
  type SitePageFields,
} from '../../contracts/platform/fields.js';
import {
  ITEM_INDEXES,
  type ItemDoc,
  type ItemSetDoc,
  type MediaDoc,
  type SiteDoc,
  type SitePageDoc,
} from '../../contracts/platform/documents.js';
import { jsonLd, reference, type JsonLdBody } from '../json-ld.js';
import { visibleIds } from './hidden-ids.js';
import type { ResourceRoutes } from './resource-routes.js';
import { ItemBody, ItemSetBody, MediaBody, SiteBody, SitePageBody } from '../../commands/platform/schemas.js';
import { referenceTo, representation, type Stamps } from './documented-schemas.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import { ItemFileKeys, itemFileKeys, MediaFileKeys, mediaFileKeys } from './media-file-urls.js';

/*
 * Each platform kind's routes: its write body (commands/platform/schemas.ts), its representation
 * as the OpenAPI document shows it, and `represent`, which returns that representation's Static
 * type: a key the schema declares and `represent` does not write fails tsc.
 */

const titleField = { 'o:title': Type.String({ maxLength: LIMITS.title }) };
const isPublicField = { 'o:is_public': Type.Boolean() };

function stamps(doc: { created_at: string; updated_at: string; owner_id: number | null }, baseUrl: string): Stamps {
  return {
    'o:owner': doc.owner_id === null ? null : reference(baseUrl, 'users', doc.owner_id),
    'o:created': { '@value': sqlTimestamp(doc.created_at), '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    'o:modified': { '@value': sqlTimestamp(doc.updated_at), '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
  };
}

export const SiteSchema = representation('o:Site', 'sites', { 'o:slug': Type.String(), ...titleField });
export type Site = Static<typeof SiteSchema>;

export const ItemSetSchema = representation('o:ItemSet', 'item_sets', {
  ...titleField,
  ...isPublicField,
  'o:site': Type.Array(referenceTo('sites', 'A site it belongs to.')),
});
export type ItemSet = Static<typeof ItemSetSchema>;

export const ItemSchema = representation('o:Item', 'items', {
  ...titleField,
  'o:description': Type.String(),
  ...isPublicField,
  'o:rights': Type.Optional(Type.String({ description: 'Its rights URI, when it has one.' })),
  'o:item_set': Type.Array(referenceTo('item_sets', 'An item set it is in; private ones only for Editor and above.')),
  'o:site': Type.Array(referenceTo('sites', 'A site it belongs to.')),
  'o:media': Type.Array(referenceTo('media', 'One of its media, by id; private ones only for Editor and above.')),
  ...ItemFileKeys,
});
export type Item = Static<typeof ItemSchema>;

export const MediaSchema = representation('o:Media', 'media', {
  'o:item': referenceTo('items', 'The item it belongs to.'),
  ...titleField,
  'o:text': Type.String(),
  ...isPublicField,
  ...MediaFileKeys,
});
export type Media = Static<typeof MediaSchema>;

const BlockOut = Type.Object(
  { 'o:layout': Type.String(), 'o:data': Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);

export const SitePageSchema = representation('o:SitePage', 'site_pages', {
  'o:site': referenceTo('sites', 'The site the page is on.'),
  'o:slug': Type.String(),
  ...titleField,
  ...isPublicField,
  'o:layout': Type.Unsafe<string | null>({ type: 'string', nullable: true }),
  'o:layout_data': Type.Record(Type.String(), Type.Unknown()),
  'o:block': Type.Array(BlockOut),
});
export type SitePage = Static<typeof SitePageSchema>;

export const siteRoutes: ResourceRoutes<typeof SiteFields, SiteDoc, typeof SiteBody.schema, typeof SiteSchema> = {
  path: 'sites',
  type: 'o:Site',
  tag: 'platform',
  spec: SITE,
  body: SiteBody,
  representation: SiteSchema,
  represent: (doc, baseUrl) =>
    jsonLd<JsonLdBody<Site>>(baseUrl, 'o:Site', 'sites', doc.id, {
      'o:slug': doc.slug,
      'o:title': doc.title,
      ...stamps(doc, baseUrl),
    }),
  isPrivate: () => false,
  publicFilter: {},
};

export const itemSetRoutes: ResourceRoutes<
  typeof ItemSetFields,
  ItemSetDoc,
  typeof ItemSetBody.schema,
  typeof ItemSetSchema
> = {
  path: 'item_sets',
  type: 'o:ItemSet',
  tag: 'platform',
  spec: ITEM_SET,
  body: ItemSetBody,
  representation: ItemSetSchema,
  represent: (doc, baseUrl) =>
    jsonLd<JsonLdBody<ItemSet>>(baseUrl, 'o:ItemSet', 'item_sets', doc.id, {
      'o:title': doc.title,
      'o:is_public': doc.is_public,
      'o:site': doc.site_ids.map((id) => reference(baseUrl, 'sites', id)),
      ...stamps(doc, baseUrl),
    }),
  isPrivate: (doc) => !doc.is_public,
  publicFilter: { is_public: true },
};

export const itemRoutes: ResourceRoutes<typeof ItemFields, ItemDoc, typeof ItemBody.schema, typeof ItemSchema> = {
  path: 'items',
  type: 'o:Item',
  tag: 'platform',
  spec: ITEM,
  collectionOptions: ITEM_INDEXES,
  body: ItemBody,
  representation: ItemSchema,
  represent: (doc, baseUrl, hidden) =>
    jsonLd<JsonLdBody<Item>>(baseUrl, 'o:Item', 'items', doc.id, {
      'o:title': doc.title,
      'o:description': doc.description,
      'o:is_public': doc.is_public,
      ...(doc.rights ? { 'o:rights': doc.rights } : {}),
      'o:item_set': visibleIds(doc.item_set_ids, hidden.itemSets).map((id) => reference(baseUrl, 'item_sets', id)),
      'o:site': doc.site_ids.map((id) => reference(baseUrl, 'sites', id)),
      'o:media': [...visibleIds(doc.media_ids, hidden.media)]
        .sort((a, b) => a - b)
        .map((id) => reference(baseUrl, 'media', id)),
      // Below Editor, `hidden` holds the item's private media: their files are not shown either.
      ...itemFileKeys(doc.files, baseUrl, (entry) => !hidden.media.has(entry.id)),
      ...stamps(doc, baseUrl),
    }),
  isPrivate: (doc) => !doc.is_public,
  publicFilter: { is_public: true },
  references: (docs) => ({
    media: docs.flatMap((doc) => doc.media_ids),
    itemSets: docs.flatMap((doc) => doc.item_set_ids),
  }),
  listQuery: {
    item_set_id: Type.Optional(Type.Integer({ minimum: 1 })),
    site_id: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  listFilter: (q) => ({
    ...(q.item_set_id !== undefined ? { item_set_ids: q.item_set_id } : {}),
    ...(q.site_id !== undefined ? { site_ids: q.site_id } : {}),
  }),
  listFilterReferences: (q) => ({ itemSets: typeof q.item_set_id === 'number' ? [q.item_set_id] : [] }),
};

export const mediaRoutes: ResourceRoutes<typeof MediaFields, MediaDoc, typeof MediaBody.schema, typeof MediaSchema> = {
  path: 'media',
  type: 'o:Media',
  tag: 'platform',
  spec: MEDIA,
  body: MediaBody,
  representation: MediaSchema,
  represent: (doc, baseUrl) =>
    jsonLd<JsonLdBody<Media>>(baseUrl, 'o:Media', 'media', doc.id, {
      'o:item': reference(baseUrl, 'items', doc.item_id),
      'o:title': doc.title,
      'o:text': doc.text,
      'o:is_public': doc.is_public,
      ...mediaFileKeys(doc, baseUrl),
      ...stamps(doc, baseUrl),
    }),
  // A media of a private item is private too: the public site does not show it, and its
  // representation would name the item.
  isPrivate: (doc, hidden) => !doc.is_public || hidden.items.has(doc.item_id),
  references: (docs) => ({ items: docs.map((doc) => doc.item_id) }),
  privateByReference: true,
  listQuery: { item_id: Type.Optional(Type.Integer({ minimum: 1 })) },
  listFilter: (q) => (q.item_id !== undefined ? { item_id: q.item_id } : {}),
};

export const sitePageRoutes: ResourceRoutes<
  typeof SitePageFields,
  SitePageDoc,
  typeof SitePageBody.schema,
  typeof SitePageSchema
> = {
  path: 'site_pages',
  type: 'o:SitePage',
  tag: 'platform',
  spec: SITE_PAGE,
  body: SitePageBody,
  representation: SitePageSchema,
  represent: (doc, baseUrl) =>
    jsonLd<JsonLdBody<SitePage>>(baseUrl, 'o:SitePage', 'site_pages', doc.id, {
      'o:site': reference(baseUrl, 'sites', doc.site_id),
      'o:slug': doc.slug,
      'o:title': doc.title,
      'o:is_public': doc.is_public,
      'o:layout': doc.layout,
      'o:layout_data': doc.layout_data,
      'o:block': doc.blocks.map((block) => ({ 'o:layout': block.layout, 'o:data': block.data })),
      ...stamps(doc, baseUrl),
    }),
  isPrivate: (doc) => !doc.is_public,
  publicFilter: { is_public: true },
  listQuery: { site_id: Type.Optional(Type.Integer({ minimum: 1 })) },
  listFilter: (q) => (q.site_id !== undefined ? { site_id: q.site_id } : {}),
};
