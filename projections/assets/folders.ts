import type { AssetFolderEvent, AssetFolderWithdrawn } from '../../contracts/assets/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { assetDocs, assetFolders } from '../../contracts/assets/documents.js';

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
