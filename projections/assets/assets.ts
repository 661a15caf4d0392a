import type {
  AssetDetailsChanged,
  AssetEvent,
  AssetUsageCleared,
  AssetUsageRecorded,
} from '../../contracts/assets/events.js';
import { AssetFile } from '../../contracts/assets/fields.js';
import { knownFields } from '../../infra/schema/record-fields.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { assetDocs, type AssetDoc } from '../../contracts/assets/documents.js';

/** The events that make an asset's own document (its usage records are another read model's). */
type AssetDocEvent = Exclude<AssetEvent, AssetUsageRecorded | AssetUsageCleared>;

/** The details an AssetDetailsChanged sets (only those it carries), and the title's sort key with a title. */
function detailChanges(data: AssetDetailsChanged['data']): Partial<AssetDoc> {
  const { id: _id, ...details } = data;
  return details.title === undefined ? details : copyWith(details, { title_sort: details.title.toLowerCase() });
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
        const { id, file, folder_ids, ...details } = event.data;
        return copyWith(copyWith(knownFields(AssetFile, file), details), {
          _id: id,
          id,
          title_sort: details.title.toLowerCase(),
          folders: folder_ids,
          created_at: at,
          updated_at: at,
          version,
        });
      }
      case 'AssetFileReplaced':
        return asset && copyWith(asset, copyWith(knownFields(AssetFile, event.data.file), { updated_at: at, version }));
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
