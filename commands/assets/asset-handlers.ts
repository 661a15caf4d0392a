import { NotFoundError } from '../../infra/errors.js';
import type { FileStorage, PendingFile } from '../../infra/file-storage/port.js';
import { findAsset, findAssets } from '../../queries/assets/assets.js';
import { folderExists } from '../../queries/assets/folders.js';
import type { CommandContext } from '../command-context.js';
import { commitThen } from '../file-commit.js';
import { handleCommand } from '../handle-command.js';
import { ifMatching } from '../precondition.js';
import { nextId } from '../sequence.js';
import { assetDecider } from './asset-decider.js';
import {
  ASSET_SEQUENCE,
  ASSET_USAGE_SEQUENCE,
  ASSET_VERSIONED,
  assetStream,
  type AssetFile,
} from '../../contracts/assets/events.js';
import { invalid } from './rules.js';
import { BULK_NAMES, type BulkChanges, type UsageInput } from './schemas.js';
import { AssetDetails } from '../../contracts/assets/fields.js';
import { fromRenamed } from '../../infra/schema/record-fields.js';

/** What the route learnt about an uploaded file besides what the storage measured. */
export interface UploadedFileInfo {
  filename: string;
  extension: string;
  mime_type: string;
}

function assetFile(pending: PendingFile, info: UploadedFileInfo): AssetFile {
  return { stored_name: pending.storedName, size: pending.size, sha256: pending.sha256, ...info };
}

async function requireFolder(ctx: CommandContext, folderId: number | null, field = 'folder_id'): Promise<void> {
  if (folderId !== null && !(await folderExists(ctx.documents, folderId)))
    throw invalid(field, `Folder ${folderId} does not exist.`);
}

/** An upload: the file received (`pending`, kept in `storage` once recorded) and what describes it. */
export interface UploadAsset {
  storage: FileStorage;
  pending: PendingFile;
  input: UploadedFileInfo & { title: string; folder_id: number | null };
}

export async function uploadAsset(ctx: CommandContext, { storage, pending, input }: UploadAsset): Promise<number> {
  await requireFolder(ctx, input.folder_id);
  const { title, folder_id, ...info } = input;
  return commitThen(storage, pending, async () => {
    const id = await nextId(ctx, ASSET_SEQUENCE);
    await handleCommand(ctx, {
      stream: assetStream(id),
      decider: assetDecider,
      command: {
        type: 'UploadAsset',
        data: { id, file: assetFile(pending, info), title, folder_id },
      },
    });
    return id;
  });
}

/** Replaces the asset's file (same extension); the previous file is removed once the change is recorded. */
export async function replaceAssetFile(
  ctx: CommandContext,
  { storage, id, pending, info }: { storage: FileStorage; id: number; pending: PendingFile; info: UploadedFileInfo },
): Promise<void> {
  const result = await commitThen(storage, pending, () =>
    handleCommand(ctx, {
      stream: assetStream(id),
      decider: assetDecider,
      command: { type: 'ReplaceAssetFile', data: { file: assetFile(pending, info) } },
    }),
  );
  for (const event of result.events) {
    if (event.type === 'AssetFileReplaced') await storage.remove(event.data.previous_stored_name);
  }
}

/** Removes folder assignments and usage records, then the asset, then its file. */
export async function deleteAsset(
  ctx: CommandContext,
  { storage, id, ifMatch }: { storage: FileStorage; id: number; ifMatch?: readonly number[] },
): Promise<void> {
  const result = await handleCommand(ctx, {
    stream: assetStream(id),
    decider: assetDecider,
    command: { type: 'DeleteAsset', data: {} },
    ifMatch: ifMatching(ifMatch, ASSET_VERSIONED),
  });
  for (const event of result.events) {
    if (event.type === 'AssetDeleted') await storage.remove(event.data.stored_name);
  }
}

export async function recordAssetUsage(ctx: CommandContext, assetId: number, input: UsageInput): Promise<number> {
  if (!(await findAsset(ctx.documents, assetId))) throw new NotFoundError('Asset not found.');
  const usageId = await nextId(ctx, ASSET_USAGE_SEQUENCE);
  const data = { usage_id: usageId, context_type: input.context_type, context_id: input.context_id ?? null };
  await handleCommand(ctx, {
    stream: assetStream(assetId),
    decider: assetDecider,
    command: { type: 'RecordAssetUsage', data },
  });
  return usageId;
}

/** Every id must name an asset, or nothing is changed. */
async function requireAssets(ctx: CommandContext, ids: number[]): Promise<void> {
  const found = new Set((await findAssets(ctx.documents, ids)).map((asset) => asset.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw new NotFoundError(`Assets not found: ${missing.join(', ')}.`);
}

/** Applies only the keys present to every asset; all ids and the folder are checked first. */
export async function bulkUpdateAssets(ctx: CommandContext, ids: number[], changes: BulkChanges): Promise<void> {
  await requireAssets(ctx, ids);
  if (changes.folder_id !== undefined) await requireFolder(ctx, changes.folder_id);
  const details = fromRenamed(AssetDetails, BULK_NAMES, changes);
  for (const id of ids) {
    if (Object.keys(details).length > 0) {
      await handleCommand(ctx, {
        stream: assetStream(id),
        decider: assetDecider,
        command: { type: 'ChangeAssetDetails', data: details },
      });
    }
    if (changes.folder_id !== undefined) {
      await handleCommand(ctx, {
        stream: assetStream(id),
        decider: assetDecider,
        command: { type: 'MoveAssetToFolder', data: { folder_id: changes.folder_id } },
      });
    }
  }
}

export async function bulkDeleteAssets(ctx: CommandContext, storage: FileStorage, ids: number[]): Promise<number[]> {
  await requireAssets(ctx, ids);
  for (const id of ids) await deleteAsset(ctx, { storage, id });
  return ids;
}
