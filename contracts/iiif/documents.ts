import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ItemFields, ItemSetFields, MediaFields } from '../platform/fields.js';

/**
 * The IIIF Presentation read model (projections/iiif/manifests.ts): per item, what its manifest
 * says, canvases included, so a manifest is one read however many canvases it has; per media,
 * which item it is a canvas of (its file events do not name the item).
 */

/** One image media of an item: a canvas of its manifest (its title and visibility, the media's fields). */
export interface CanvasEntry extends Pick<MediaFields, 'title' | 'is_public'> {
  media_id: number;
  width: number;
  height: number;
  /** Its derivatives exist (the canvas's thumbnail). */
  thumbnails: boolean;
}

/** What the manifest says of its item: some of the item's fields (contracts/platform/fields.ts), and its canvases. */
export interface ManifestFields extends Pick<
  ItemFields,
  'title' | 'description' | 'is_public' | 'item_set_ids' | 'rights'
> {
  _id: number;
  /** Its image media in media id order. */
  canvases: CanvasEntry[];
  /** How many of them are public: an anonymous caller's manifest exists when the item is public and this is above 0. */
  public_canvases: number;
  /** Moves on every change of the document: the manifest's ETag names it. */
  revision: number;
  /** When the item was created, ISO 8601. */
  created: string;
}

export interface ManifestDoc extends ManifestFields {
  /** What an anonymous caller's manifest shows, as JSON (null: none): a change of it is a Change Discovery activity. */
  public_view?: string | null;
  [key: string]: unknown;
}

/** A media as the manifests know it: its item, and its canvas when its file is an image. */
export interface ManifestMediaDoc extends Pick<MediaFields, 'item_id' | 'title' | 'is_public'> {
  _id: number;
  canvas: CanvasEntry | null;
  [key: string]: unknown;
}

export const IIIF_COLLECTIONS = { manifests: 'iiif_manifests', media: 'iiif_manifest_media' } as const;

const MEDIA_INDEXES = { indexes: ['item_id'] } as const;

export const manifestDocs = (d: DocumentStore) => d.collection<ManifestDoc>(IIIF_COLLECTIONS.manifests);
export const manifestMedia = (d: DocumentStore) =>
  d.collection<ManifestMediaDoc>(IIIF_COLLECTIONS.media, MEDIA_INDEXES);

/** An item set as the collections know it. */
export interface CollectionSetDoc extends Pick<ItemSetFields, 'title' | 'is_public'> {
  _id: number;
  [key: string]: unknown;
}

/**
 * One activity of IIIF Change Discovery, numbered from 1 in log order: what became of a manifest
 * (`object_id` an item's) or a collection (an item set's, or 0: the collection of every set).
 */
/** What an activity says happened, to what. */
export interface ActivityChange {
  type: 'Create' | 'Update' | 'Delete';
  object_type: 'Manifest' | 'Collection';
  object_id: number;
}

export interface ActivityDoc extends ActivityChange {
  _id: number;
  /** When the change was made: the event's time, ISO 8601. */
  end_time: string;
  [key: string]: unknown;
}

/** How many activities there are, and the last log position that recorded some (a redelivered event records none). */
export interface ActivityCountDoc {
  _id: 'activities';
  count: number;
  position: number;
  [key: string]: unknown;
}

export const collectionSets = (d: DocumentStore) => d.collection<CollectionSetDoc>('iiif_sets');
export const activityDocs = (d: DocumentStore) => d.collection<ActivityDoc>('iiif_activities');
export const activityCount = (d: DocumentStore) => d.collection<ActivityCountDoc>('iiif_activity_count');
