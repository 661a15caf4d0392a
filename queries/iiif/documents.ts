import type { DocumentStore } from '../../infra/document-store/port.js';

/**
 * The IIIF Presentation read model (projections/iiif/manifests.ts): per item, what its manifest
 * says, canvases included, so a manifest is one read however many canvases it has; per media,
 * which item it is a canvas of (its file events do not name the item).
 */

/** One image media of an item: a canvas of its manifest. */
export interface CanvasEntry {
  media_id: number;
  title: string;
  is_public: boolean;
  width: number;
  height: number;
  /** Its derivatives exist (the canvas's thumbnail). */
  thumbnails: boolean;
}

export interface ManifestDoc {
  _id: number;
  title: string;
  description: string;
  is_public: boolean;
  item_set_ids: number[];
  /** Its rights URI (http:// form), or null. */
  rights: string | null;
  /** Its image media in media id order. */
  canvases: CanvasEntry[];
  /** How many of them are public: an anonymous caller's manifest exists when the item is public and this is above 0. */
  public_canvases: number;
  /** Moves on every change of the document: the manifest's ETag names it. */
  revision: number;
  [key: string]: unknown;
}

/** A media as the manifests know it: its item, and its canvas when its file is an image. */
export interface ManifestMediaDoc {
  _id: number;
  item_id: number;
  title: string;
  is_public: boolean;
  canvas: CanvasEntry | null;
  [key: string]: unknown;
}

export const IIIF_COLLECTIONS = { manifests: 'iiif_manifests', media: 'iiif_manifest_media' } as const;

const MEDIA_INDEXES = { indexes: ['item_id'] } as const;

export const manifestDocs = (d: DocumentStore) => d.collection<ManifestDoc>(IIIF_COLLECTIONS.manifests);
export const manifestMedia = (d: DocumentStore) =>
  d.collection<ManifestMediaDoc>(IIIF_COLLECTIONS.media, MEDIA_INDEXES);
