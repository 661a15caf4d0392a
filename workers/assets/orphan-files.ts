import type { ModuleRuntime } from '../../commands/module-runtime.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { assetsProjection } from '../../projections/assets/assets.js';
import { assetDocs } from '../../contracts/assets/documents.js';
import { removeOrphanFiles } from '../files/orphan-files.js';

/** Removes the asset files no asset record owns (workers/files/orphan-files.ts). */
export function removeOrphanAssetFiles(runtime: ModuleRuntime, storage: FileStorage, now: number): Promise<number> {
  return removeOrphanFiles(
    runtime,
    storage,
    {
      label: 'asset files',
      projection: assetsProjection.name,
      async ownedNames() {
        const docs = await assetDocs(runtime.documents).find({}, { fields: ['stored_name'] });
        return new Set(docs.map((doc) => doc.stored_name));
      },
    },
    now,
  );
}
