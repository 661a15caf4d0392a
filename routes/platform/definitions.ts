import { Type } from '@sinclair/typebox';
import { ITEM, ITEM_SET, MEDIA, SITE, SITE_PAGE } from '../../commands/platform/handlers.js';
import type {
  ItemFields,
  ItemSetFields,
  MediaFields,
  PageBlock,
  SiteFields,
  SitePageFields,
} from '../../contracts/platform/fields.js';
import {
  ITEM_INDEXES,
  type ItemDoc,
  type ItemSetDoc,
  type MediaDoc,
  type SiteDoc,
  type SitePageDoc,
} from '../../contracts/platform/documents.js';
import { jsonLd, reference } from '../json-ld.js';
import { visibleIds } from './hidden-ids.js';
import type { ResourceRoutes } from './resource-routes.js';
import {
  ItemBody,
  ItemSetBody,
  MediaBody,
  SiteBody,
  SitePageBody,
  type RefInput,
} from '../../commands/platform/schemas.js';
import { definedKeys } from '../../commands/defined-keys.js';
import { referenceTo, representation } from './documented-schemas.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import { normalisedRights } from '../../commands/platform/rights.js';
import { ItemFileKeys, itemFileKeys, MediaFileKeys, mediaFileKeys } from './media-file-urls.js';

const titleField = { 'o:title': Type.String({ maxLength: 1000 }) };
const isPublicField = { 'o:is_public': Type.Boolean() };

function refIds(value: RefInput[] | undefined): number[] | undefined {
  return value?.map((r) => r['o:id']);
}

/** `o:rights` as a body gives it: a URI checked and in its http:// form, null to remove it. */
function rightsOf(value: string | null | undefined): string | null | undefined {
  return typeof value === 'string' ? normalisedRights(value) : value;
}

function refId(value: RefInput | undefined): number | undefined {
  return value?.['o:id'];
}

function stamps(doc: { created_at: string; updated_at: string; owner_id: number | null }, baseUrl: string) {
  return {
    'o:owner': doc.owner_id === null ? null : reference(baseUrl, 'users', doc.owner_id),
    'o:created': { '@value': sqlTimestamp(doc.created_at), '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    'o:modified': { '@value': sqlTimestamp(doc.updated_at), '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
  };
}

export const siteRoutes: ResourceRoutes<SiteFields, SiteDoc, typeof SiteBody> = {
  path: 'sites',
  type: 'o:Site',
  tag: 'platform',
  spec: SITE,
  body: SiteBody,
  representation: representation('o:Site', 'sites', { 'o:slug': Type.String(), ...titleField }),
  requiredOnCreate: ['o:slug', 'o:title'],
  defaults: () => ({ slug: '', title: '' }),
  fromBody: (b) => definedKeys({ slug: b['o:slug'], title: b['o:title'] }),
  represent: (doc, baseUrl) =>
    jsonLd(baseUrl, 'o:Site', 'sites', doc.id, {
      'o:slug': doc.slug,
      'o:title': doc.title,
      ...stamps(doc, baseUrl),
    }),
  isPrivate: () => false,
  publicFilter: {},
};

export const itemSetRoutes: ResourceRoutes<ItemSetFields, ItemSetDoc, typeof ItemSetBody> = {
  path: 'item_sets',
  type: 'o:ItemSet',
  tag: 'platform',
  spec: ITEM_SET,
  body: ItemSetBody,
  representation: representation('o:ItemSet', 'item_sets', {
    ...titleField,
    ...isPublicField,
    'o:site': Type.Array(referenceTo('sites', 'A site it belongs to.')),
  }),
  requiredOnCreate: ['o:title'],
  defaults: () => ({ title: '', is_public: true, site_ids: [] }),
  fromBody: (b) => definedKeys({ title: b['o:title'], is_public: b['o:is_public'], site_ids: refIds(b['o:site']) }),
  represent: (doc, baseUrl) =>
    jsonLd(baseUrl, 'o:ItemSet', 'item_sets', doc.id, {
      'o:title': doc.title,
      'o:is_public': doc.is_public,
      'o:site': doc.site_ids.map((id) => reference(baseUrl, 'sites', id)),
      ...stamps(doc, baseUrl),
    }),
  isPrivate: (doc) => !doc.is_public,
  publicFilter: { is_public: true },
};

export const itemRoutes: ResourceRoutes<ItemFields, ItemDoc, typeof ItemBody> = {
  path: 'items',
  type: 'o:Item',
  tag: 'platform',
  spec: ITEM,
  collectionOptions: ITEM_INDEXES,
  body: ItemBody,
  representation: representation('o:Item', 'items', {
    ...titleField,
    'o:description': Type.String(),
    ...isPublicField,
    'o:rights': Type.Optional(Type.String({ description: 'Its rights URI, when it has one.' })),
    'o:item_set': Type.Array(referenceTo('item_sets', 'An item set it is in; private ones only for Editor and above.')),
    'o:site': Type.Array(referenceTo('sites', 'A site it belongs to.')),
    'o:media': Type.Array(referenceTo('media', 'One of its media, by id; private ones only for Editor and above.')),
    ...ItemFileKeys,
  }),
  requiredOnCreate: ['o:title'],
  defaults: () => ({ title: '', description: '', is_public: true, item_set_ids: [], site_ids: [], rights: null }),
  fromBody: (b) =>
    definedKeys({
      title: b['o:title'],
      description: b['o:description'],
      is_public: b['o:is_public'],
      item_set_ids: refIds(b['o:item_set']),
      site_ids: refIds(b['o:site']),
      rights: rightsOf(b['o:rights']),
    }),
  represent: (doc, baseUrl, hidden) =>
    jsonLd(baseUrl, 'o:Item', 'items', doc.id, {
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

export const mediaRoutes: ResourceRoutes<MediaFields, MediaDoc, typeof MediaBody> = {
  path: 'media',
  type: 'o:Media',
  tag: 'platform',
  spec: MEDIA,
  body: MediaBody,
  representation: representation('o:Media', 'media', {
    'o:item': referenceTo('items', 'The item it belongs to.'),
    ...titleField,
    'o:text': Type.String(),
    ...isPublicField,
    ...MediaFileKeys,
  }),
  requiredOnCreate: ['o:item', 'o:title'],
  defaults: () => ({ item_id: 0, title: '', text: '', is_public: true }),
  fromBody: (b) =>
    definedKeys({
      item_id: refId(b['o:item']),
      title: b['o:title'],
      text: b['o:text'],
      is_public: b['o:is_public'],
    }),
  represent: (doc, baseUrl) =>
    jsonLd(baseUrl, 'o:Media', 'media', doc.id, {
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

const BlockOut = Type.Object(
  { 'o:layout': Type.String(), 'o:data': Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);

export const sitePageRoutes: ResourceRoutes<SitePageFields, SitePageDoc, typeof SitePageBody> = {
  path: 'site_pages',
  type: 'o:SitePage',
  tag: 'platform',
  spec: SITE_PAGE,
  body: SitePageBody,
  representation: representation('o:SitePage', 'site_pages', {
    'o:site': referenceTo('sites', 'The site the page is on.'),
    'o:slug': Type.String(),
    ...titleField,
    ...isPublicField,
    'o:layout': Type.Unsafe<string | null>({ type: 'string', nullable: true }),
    'o:layout_data': Type.Record(Type.String(), Type.Unknown()),
    'o:block': Type.Array(BlockOut),
  }),
  requiredOnCreate: ['o:site', 'o:slug', 'o:title'],
  defaults: () => ({ site_id: 0, slug: '', title: '', is_public: true, layout: null, layout_data: {}, blocks: [] }),
  fromBody: (b) =>
    definedKeys({
      site_id: refId(b['o:site']),
      slug: b['o:slug'],
      title: b['o:title'],
      is_public: b['o:is_public'],
      layout: b['o:layout'],
      layout_data: b['o:layout_data'] === null ? {} : b['o:layout_data'],
      blocks: b['o:block']?.map((block): PageBlock => ({ layout: block['o:layout'], data: block['o:data'] ?? {} })),
    }),
  represent: (doc, baseUrl) =>
    jsonLd(baseUrl, 'o:SitePage', 'site_pages', doc.id, {
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
