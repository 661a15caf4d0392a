import type { AssetFolderEvent, AssetFolderFields, AssetFolderWithdrawn } from '../../commands/assets/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { assetDocs } from './assets.js';
import { ASSET_COLLECTIONS } from './collections.js';

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

/**
 * The folder tree (each folder knows its parent); deleting a folder takes it out of every
 * asset's folders, which writes other documents: the escape hatch.
 */
export const assetFoldersProjection = defineHandlerProjection({
  name: 'asset-folders',
  handles: ['AssetFolderCreated', 'AssetFolderRenamed', 'AssetFolderMoved', 'AssetFolderDeleted'],
  async handle(event: Projected<Exclude<AssetFolderEvent, AssetFolderWithdrawn>>, documents) {
    const folders = assetFolders(documents);
    const at = event.metadata.at;
    // Every event handled here is the folder's own: its stream version is the folder's version.
    const version = event.streamVersion;
    switch (event.type) {
      case 'AssetFolderCreated': {
        const { id, ...fields } = event.data;
        await folders.put(copyWith(fields, { _id: id, id, created_at: at, updated_at: at, version }));
        return;
      }
      case 'AssetFolderRenamed':
      case 'AssetFolderMoved': {
        const { id, ...changed } = event.data;
        await folders.updateOne({ _id: id }, { $set: copyWith(changed, { updated_at: at, version }) });
        return;
      }
      case 'AssetFolderDeleted':
        await folders.deleteOne({ _id: event.data.id });
        await assetDocs(documents).updateMany({ folders: event.data.id }, { $pull: { folders: event.data.id } });
        return;
    }
  },
});
