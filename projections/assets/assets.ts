import { ASSET_VERSIONED, type AssetEvent, type AssetFile } from '../../commands/assets/events.js';
import { assetDocs } from '../../queries/assets/documents.js';
import { defineProjection } from '../projection.js';

function fileFields(file: AssetFile) {
  const { stored_name, filename, extension, mime_type, size, sha256 } = file;
  return { stored_name, filename, extension, mime_type, size, sha256 };
}

/** One document per asset, with its current file, metadata and folders (absolute values only). */
export const assetsProjection = defineProjection({
  name: 'assets',
  handles: [...ASSET_VERSIONED],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as AssetEvent;
    const assets = assetDocs(documents);
    const at = stored.metadata.at;
    // Every event handled here is the asset's own: its stream version is the asset's version.
    const version = stored.streamVersion;
    switch (event.type) {
      case 'AssetUploaded': {
        const { id, file, title, alt, folder_ids } = event.data;
        await assets.put({
          _id: id,
          id,
          ...fileFields(file),
          title,
          title_sort: title.toLowerCase(),
          alt,
          folders: folder_ids,
          created_at: at,
          updated_at: at,
          version,
        });
        return;
      }
      case 'AssetFileReplaced':
        await assets.updateOne({ _id: event.data.id }, { $set: { ...fileFields(event.data.file), updated_at: at, version } });
        return;
      case 'AssetDetailsChanged': {
        const changes: Record<string, unknown> = { updated_at: at, version };
        if (event.data.title !== undefined) Object.assign(changes, { title: event.data.title, title_sort: event.data.title.toLowerCase() });
        if (event.data.alt !== undefined) changes.alt = event.data.alt;
        await assets.updateOne({ _id: event.data.id }, { $set: changes });
        return;
      }
      case 'AssetMovedToFolder':
        await assets.updateOne({ _id: event.data.id }, { $set: { folders: [event.data.folder_id], updated_at: at, version } });
        return;
      case 'AssetRemovedFromFolders':
        await assets.updateOne({ _id: event.data.id }, { $set: { folders: [], updated_at: at, version } });
        return;
      case 'AssetDeleted':
        await assets.deleteOne({ _id: event.data.id });
        return;
      case 'AssetUsageRecorded':
      case 'AssetUsageCleared':
        return;
    }
  },
});
