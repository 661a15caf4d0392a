import type { DomainEvent } from '../domain-event.js';
import type { AssetDetails, AssetFields, AssetFile, AssetFolderFields } from './fields.js';

/** The asset library's events; the records' fields are declared in fields.ts. */
export type { AssetDetails, AssetFields, AssetFile, AssetFolderFields } from './fields.js';

export type AssetFolderCreated = DomainEvent<'AssetFolderCreated', { id: number } & AssetFolderFields>;
export type AssetFolderRenamed = DomainEvent<
  'AssetFolderRenamed',
  { id: number } & Pick<AssetFolderFields, 'title' | 'slug'>
>;
export type AssetFolderMoved = DomainEvent<
  'AssetFolderMoved',
  { id: number } & Pick<AssetFolderFields, 'parent_id' | 'slug'>
>;
export type AssetFolderDeleted = DomainEvent<'AssetFolderDeleted', { id: number }>;
/** Its parent was deleted after the folder was placed in the tree and before the folder was written: it never will be. */
export type AssetFolderWithdrawn = DomainEvent<'AssetFolderWithdrawn', { id: number }>;
export type AssetFolderEvent =
  AssetFolderCreated | AssetFolderRenamed | AssetFolderMoved | AssetFolderDeleted | AssetFolderWithdrawn;

export type AssetUploaded = DomainEvent<'AssetUploaded', { id: number } & AssetFields>;
export type AssetFileReplaced = DomainEvent<
  'AssetFileReplaced',
  { id: number; file: AssetFile; previous_stored_name: string }
>;
/** Only the keys present changed. */
export type AssetDetailsChanged = DomainEvent<'AssetDetailsChanged', { id: number } & Partial<AssetDetails>>;
/** The asset now sits in exactly this folder. */
export type AssetMovedToFolder = DomainEvent<'AssetMovedToFolder', { id: number; folder_id: number }>;
export type AssetRemovedFromFolders = DomainEvent<'AssetRemovedFromFolders', { id: number; folder_ids: number[] }>;
export type AssetUsageRecorded = DomainEvent<
  'AssetUsageRecorded',
  { id: number; usage_id: number; context_type: string; context_id: number | null }
>;
export type AssetUsageCleared = DomainEvent<'AssetUsageCleared', { id: number }>;
export type AssetDeleted = DomainEvent<'AssetDeleted', { id: number; stored_name: string }>;
export type AssetEvent =
  | AssetUploaded
  | AssetFileReplaced
  | AssetDetailsChanged
  | AssetMovedToFolder
  | AssetRemovedFromFolders
  | AssetUsageRecorded
  | AssetUsageCleared
  | AssetDeleted;

/**
 * The events each read model folds into a record's own document (projections/assets/), and so
 * those that make its version, which If-Match names (commands/precondition.ts). An asset's usage
 * records are not part of it.
 */
export const ASSET_VERSIONED: ReadonlySet<string> = new Set([
  'AssetUploaded',
  'AssetFileReplaced',
  'AssetDetailsChanged',
  'AssetMovedToFolder',
  'AssetRemovedFromFolders',
  'AssetDeleted',
]);
export const ASSET_FOLDER_VERSIONED: ReadonlySet<string> = new Set([
  'AssetFolderCreated',
  'AssetFolderRenamed',
  'AssetFolderMoved',
  'AssetFolderDeleted',
]);

export const assetStream = (id: number) => `asset-${id}`;
export const assetFolderStream = (id: number) => `asset_folder-${id}`;

export const ASSET_SEQUENCE = 'asset';
export const ASSET_FOLDER_SEQUENCE = 'asset_folder';
export const ASSET_USAGE_SEQUENCE = 'asset_usage';
