import t from 'tap';
import type { Static, TObject } from '@sinclair/typebox';
import { jsonLd, type JsonLdBody } from '../../routes/json-ld.js';
import {
  itemRoutes,
  ItemSchema,
  itemSetRoutes,
  ItemSetSchema,
  mediaRoutes,
  MediaSchema,
  sitePageRoutes,
  SitePageSchema,
  siteRoutes,
  SiteSchema,
  type Item,
  type Site,
} from '../../routes/platform/definitions.js';
import { NOTHING_HIDDEN } from '../../routes/platform/hidden-ids.js';
import type { ItemDoc, ItemSetDoc, MediaDoc, SiteDoc, SitePageDoc } from '../../contracts/platform/documents.js';

/*
 * Replies are typed (issue 49): each platform kind's `represent` returns the Static type of the
 * representation schema the OpenAPI document shows for it, so a key the schema declares and
 * `represent` does not write, or one it writes and the schema does not declare, fails `tsc`
 * (which checks test/ too: each @ts-expect-error below is itself an error the day the mistake it
 * marks compiles). The runtime tests add what tsc cannot see: the optional keys (`o:rights`, a
 * media's file) are written when the record has them.
 */

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const exact: [
  Same<ReturnType<typeof siteRoutes.represent>, Static<typeof SiteSchema>>,
  Same<ReturnType<typeof itemSetRoutes.represent>, Static<typeof ItemSetSchema>>,
  Same<ReturnType<typeof itemRoutes.represent>, Static<typeof ItemSchema>>,
  Same<ReturnType<typeof mediaRoutes.represent>, Static<typeof MediaSchema>>,
  Same<ReturnType<typeof sitePageRoutes.represent>, Static<typeof SitePageSchema>>,
] = [true, true, true, true, true];

const BASE = 'http://test.local';
const AT = '2026-01-02T03:04:05.000Z';
const STAMPS = { created_at: AT, updated_at: AT, owner_id: 1, version: 2 };

const item: ItemDoc = {
  ...STAMPS,
  _id: 1,
  id: 1,
  title: 'Chart',
  description: 'Soundings.',
  is_public: true,
  item_set_ids: [2],
  site_ids: [3],
  rights: 'http://creativecommons.org/licenses/by/4.0/',
  media_ids: [4],
  files: [{ id: 4, is_public: true, thumbnails: true }],
};

/** A representation schema with one field more: the item's `represent` does not write it. */
type WithAlternative = Item & { 'o:alternative': string };
export function itemWithAlternative(): WithAlternative {
  // @ts-expect-error 'o:alternative' is declared and not produced.
  return itemRoutes.represent(item, BASE, NOTHING_HIDDEN);
}

/** A `represent` is checked key by key: the body literal handed to jsonLd has the schema's type. */
export function siteMissingItsSlug(doc: SiteDoc): Site {
  // @ts-expect-error 'o:slug' is declared and not produced.
  return jsonLd<JsonLdBody<Site>>(BASE, 'o:Site', 'sites', doc.id, {
    'o:title': doc.title,
    'o:owner': null,
    'o:created': { '@value': doc.created_at, '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    'o:modified': { '@value': doc.updated_at, '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
  });
}
export function siteWithAnUndeclaredKey(doc: SiteDoc): Site {
  return jsonLd<JsonLdBody<Site>>(BASE, 'o:Site', 'sites', doc.id, {
    'o:slug': doc.slug,
    'o:title': doc.title,
    // @ts-expect-error 'o:summary' is produced and not declared.
    'o:summary': doc.title,
    'o:owner': null,
    'o:created': { '@value': doc.created_at, '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    'o:modified': { '@value': doc.updated_at, '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
  });
}

/** A kind's definition whose `represent` misses a declared field does not compile either. */
export const itemRoutesMissingDescription: typeof itemRoutes = {
  ...itemRoutes,
  // @ts-expect-error 'o:description' is declared and not produced.
  represent: (doc, baseUrl, hidden) => {
    const { 'o:description': _description, ...rest } = itemRoutes.represent(doc, baseUrl, hidden);
    return rest;
  },
};

const keys = (value: object) => Object.keys(value).sort();
const schemaKeys = (schema: TObject) => keys(schema.properties);

t.test('each platform representation is typed by its schema (checked by tsc)', async (t) => {
  t.same(exact, [true, true, true, true, true], 'the real check is tsc, which compiles this file');
});

t.test('each platform representation writes every key of its schema, given a record that has them all', async (t) => {
  const site: SiteDoc = { ...STAMPS, _id: 3, id: 3, slug: 'main', title: 'Main' };
  const set: ItemSetDoc = { ...STAMPS, _id: 2, id: 2, title: 'Maps', is_public: true, site_ids: [3] };
  const media: MediaDoc = {
    ...STAMPS,
    _id: 4,
    id: 4,
    item_id: 1,
    title: 'Scan',
    text: '',
    is_public: true,
    file: {
      stored_name: 'a1',
      source: 'scan.jpg',
      extension: 'jpg',
      media_type: 'image/jpeg',
      size: 3,
      sha256: 'abc',
      pixels: { width: 10, height: 20 },
    },
    file_status: 'made',
  };
  const page: SitePageDoc = {
    ...STAMPS,
    _id: 5,
    id: 5,
    site_id: 3,
    slug: 'home',
    title: 'Home',
    is_public: true,
    layout: null,
    layout_data: {},
    blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }],
  };
  t.same(keys(siteRoutes.represent(site, BASE, NOTHING_HIDDEN)), schemaKeys(SiteSchema), 'site');
  t.same(keys(itemSetRoutes.represent(set, BASE, NOTHING_HIDDEN)), schemaKeys(ItemSetSchema), 'item set');
  t.same(keys(itemRoutes.represent(item, BASE, NOTHING_HIDDEN)), schemaKeys(ItemSchema), 'item with rights');
  t.same(keys(mediaRoutes.represent(media, BASE, NOTHING_HIDDEN)), schemaKeys(MediaSchema), 'media with a file');
  t.same(keys(sitePageRoutes.represent(page, BASE, NOTHING_HIDDEN)), schemaKeys(SitePageSchema), 'site page');
  t.notOk(
    'o:rights' in itemRoutes.represent({ ...item, rights: null }, BASE, NOTHING_HIDDEN),
    'o:rights, optional, left out without rights',
  );
});
