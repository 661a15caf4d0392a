import type { DocumentStore } from '../../infra/document-store/port.js';
import type { AssetDetails, AssetFile, AssetFolderFields } from './fields.js';

/*
 * The asset library's read models: each document and its collection, as the projections
 * (projections/assets/) write them and the queries (queries/assets/) and commands read them.
 */

/** The asset library's read-model collections by name. */
export const ASSET_COLLECTIONS = {
  folders: 'asset_folders',
  assets: 'assets',
  usage: 'asset_usage',
} as const;

/** An asset as the read model keeps it: its file's fields and its details at the top level. */
export interface AssetDoc extends AssetFile, AssetDetails {
  _id: number;
  id: number;
  /** The stream version of the last of its own events folded in: its ETag's (app/conditional). */
  version?: number;
  /** Lower-cased title: what sort_by=name orders by, so case does not split the list. */
  title_sort: string;
  folders: number[];
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** A folder's assets are listed by `{folders: id}`: each asset's folder ids in an element index. */
const ASSET_INDEXES = { elementIndexes: ['folders'] } as const;

export const assetDocs = (d: DocumentStore) => d.collection<AssetDoc>(ASSET_COLLECTIONS.assets, ASSET_INDEXES);

export interface AssetFolderDoc extends AssetFolderFields {
  _id: number;
  id: number;
  /** The stream version of the last of its own events folded in: its ETag's (app/conditional). */
  version?: number;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** A slug is unique among a folder's siblings: looked up by both (the SQLite store indexes them). */
const FOLDER_INDEXES = { indexes: [['parent_id', 'slug']] } as const;

export const assetFolders = (d: DocumentStore) =>
  d.collection<AssetFolderDoc>(ASSET_COLLECTIONS.folders, FOLDER_INDEXES);

export interface AssetUsageDoc {
  _id: number;
  id: number;
  asset_id: number;
  context_type: string;
  context_id: number | null;
  user_id: number | null;
  created_at: string;
  [key: string]: unknown;
}

/** An asset's usage records are looked up by the asset (the SQLite store indexes it). */
const USAGE_INDEXES = { indexes: ['asset_id'] } as const;

export const assetUsage = (d: DocumentStore) => d.collection<AssetUsageDoc>(ASSET_COLLECTIONS.usage, USAGE_INDEXES);
