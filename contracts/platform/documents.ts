import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ItemFields, ItemSetFields, MediaFields, SiteFields, SitePageFields } from './fields.js';
import type { Derivatives, MediaFile } from './media-files.js';

interface Tracked {
  _id: number;
  id: number;
  created_at: string;
  updated_at: string;
  owner_id: number | null;
  /** The stream version of the last event folded in: the resource's ETag version (app/conditional). */
  version?: number;
  [key: string]: unknown;
}

export type SiteDoc = Tracked & SiteFields;
export type ItemSetDoc = Tracked & ItemSetFields;
/**
 * What the derivative worker owes a media's file: `none` (no file, or not an image), `pending`,
 * `made`, or `failed` (the image could not be decoded; kept, never retried by itself).
 */
export type FileStatus = 'none' | 'pending' | 'made' | 'failed';

/** One media of an item that has a file (the item's `files`, in media id order). */
export interface ItemFileEntry {
  id: number;
  is_public: boolean;
  /** Its derivatives exist. */
  thumbnails: boolean;
}

/** Documents folded before items' events carried `rights` (or restored from such a backup) lack it until rebuilt. */
export type ItemDoc = Tracked &
  Omit<ItemFields, 'rights'> & { rights?: string | null; media_ids: number[]; files?: ItemFileEntry[] };
/** Documents written before media had files lack the file's keys. */
export type MediaDoc = Tracked &
  MediaFields & { file?: MediaFile | null; derivatives?: Derivatives | null; file_status?: FileStatus };
export type SitePageDoc = Tracked & SitePageFields;

export const PLATFORM_COLLECTIONS = {
  sites: 'sites',
  itemSets: 'item_sets',
  items: 'items',
  media: 'media',
  sitePages: 'site_pages',
} as const;

/** The fields looked up other than _id (the SQLite store indexes them): slug clashes, a site's pages, an item's media. */
const SITE_INDEXES = { indexes: ['slug'] } as const;
const MEDIA_INDEXES = { indexes: ['item_id', 'file_status'] } as const;
const SITE_PAGE_INDEXES = { indexes: [['site_id', 'slug']] } as const;
/** The items list's order, and its site and item set filters (one side table each, not every item's array). */
export const ITEM_INDEXES = { indexes: ['id'], elementIndexes: ['site_ids', 'item_set_ids'] } as const;

export const sites = (d: DocumentStore) => d.collection<SiteDoc>(PLATFORM_COLLECTIONS.sites, SITE_INDEXES);
export const itemSets = (d: DocumentStore) => d.collection<ItemSetDoc>(PLATFORM_COLLECTIONS.itemSets);
export const items = (d: DocumentStore) => d.collection<ItemDoc>(PLATFORM_COLLECTIONS.items, ITEM_INDEXES);
export const mediaDocs = (d: DocumentStore) => d.collection<MediaDoc>(PLATFORM_COLLECTIONS.media, MEDIA_INDEXES);
export const sitePages = (d: DocumentStore) =>
  d.collection<SitePageDoc>(PLATFORM_COLLECTIONS.sitePages, SITE_PAGE_INDEXES);
