import type { AssetEvent, AssetFile, AssetUsageCleared, AssetUsageRecorded } from '../../contracts/assets/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { assetDocs, type AssetDoc } from '../../contracts/assets/documents.js';

/** The events that make an asset's own document (its usage records are another read model's). */
type AssetDocEvent = Exclude<AssetEvent, AssetUsageRecorded | AssetUsageCleared>;

function fileFields(file: AssetFile) {
  const { stored_name, filename, extension, mime_type, size, sha256 } = file;
  return { stored_name, filename, extension, mime_type, size, sha256 };
}

/** The title, alt text and sort key an AssetDetailsChanged sets: only those it carries. */
function detailChanges(data: { title?: string; alt?: string }): Partial<AssetDoc> {
  const changes: Partial<AssetDoc> = {};
  if (data.title !== undefined) Object.assign(changes, { title: data.title, title_sort: data.title.toLowerCase() });
  if (data.alt !== undefined) changes.alt = data.alt;
  return changes;
}

/** One document per asset, with its current file, metadata and folders (absolute values only). */
export const assetsProjection = defineProjection({
  name: 'assets',
  handles: [
    'AssetUploaded',
    'AssetFileReplaced',
    'AssetDetailsChanged',
    'AssetMovedToFolder',
    'AssetRemovedFromFolders',
    'AssetDeleted',
  ],
  collection: assetDocs,
  evolve(asset: AssetDoc | null, event: Projected<AssetDocEvent>): AssetDoc | null {
    const at = event.metadata.at;
    // Every event handled here is the asset's own: its stream version is the asset's version.
    const version = event.streamVersion;
    switch (event.type) {
      case 'AssetUploaded': {
        const { id, file, title, alt, folder_ids } = event.data;
        return {
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
        };
      }
      case 'AssetFileReplaced':
        return asset && copyWith(asset, copyWith(fileFields(event.data.file), { updated_at: at, version }));
      case 'AssetDetailsChanged':
        return asset && copyWith(asset, copyWith(detailChanges(event.data), { updated_at: at, version }));
      case 'AssetMovedToFolder':
        return asset && copyWith(asset, { folders: [event.data.folder_id], updated_at: at, version });
      case 'AssetRemovedFromFolders':
        return asset && copyWith(asset, { folders: [], updated_at: at, version });
      case 'AssetDeleted':
        return null;
    }
  },
  documentId: (event) => event.data.id,
});
