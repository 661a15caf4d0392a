import { NotFoundError, VersionConflictError } from '../../infra/errors.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
import { slugify } from '../../infra/text/slug.js';
import { assetFolders } from '../../contracts/assets/documents.js';
import { findFolder, folderExists } from '../../queries/assets/folders.js';
import type { CommandContext } from '../command-context.js';
import { foldEvents } from '../decider.js';
import { handleCommand, toDomainEvents } from '../handle-command.js';
import { checkPrecondition, ifMatching, type VersionPrecondition } from '../precondition.js';
import { ABANDONED_AFTER_MS } from '../reservations/reservations.js';
import { nextId } from '../sequence.js';
import { metadataFor } from '../command-context.js';
import { ASSET_FOLDER_SEQUENCE, ASSET_FOLDER_VERSIONED, assetFolderStream } from '../../contracts/assets/events.js';
import { AssetFolderFields } from '../../contracts/assets/fields.js';
import { assetFolderDecider } from './folder-decider.js';
import {
  ASSET_FOLDER_TREE_STREAM,
  folderTreeDecider,
  type FolderTreeCommand,
  type FolderTreeEvent,
  type KnownFolder,
} from './folder-tree-decider.js';
import { invalid, requireTitle } from './rules.js';
import type { CreateFolderInput, UpdateFolderInput } from './schemas.js';

/** Folder writes at once each win one round on the tree stream; every conflict means another moved it on. */
const MAX_TREE_ATTEMPTS = 200;

/**
 * Appends the tree's decision for `command` (built from every folder the read models know and
 * the stream's settled version) at the tree stream's version; a conflict is decided again.
 */
async function changeTree(
  ctx: CommandContext,
  command: (view: { known: KnownFolder[]; settledThrough: number }) => FolderTreeCommand,
): Promise<FolderTreeEvent> {
  for (let attempt = 0; attempt < MAX_TREE_ATTEMPTS; attempt++) {
    const stored = await ctx.eventStore.readStream(ASSET_FOLDER_TREE_STREAM);
    const settledBefore = ctx.clock.now().getTime() - ABANDONED_AFTER_MS;
    let settledThrough = 0;
    for (const event of stored)
      if (Date.parse(event.metadata.at) <= settledBefore) settledThrough = event.streamVersion;
    const known = (await assetFolders(ctx.documents).find({})).map(({ id, parent_id, slug }) => ({
      id,
      parent_id,
      slug,
    }));
    const state = foldEvents(folderTreeDecider, toDomainEvents<FolderTreeEvent>(stored));
    const [event] = folderTreeDecider.decide(command({ known, settledThrough }), state);
    try {
      await ctx.eventStore.append(
        ASSET_FOLDER_TREE_STREAM,
        [{ type: event.type, data: event.data, metadata: metadataFor(ctx) }],
        stored.length,
      );
      return event;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  throw new VersionConflictError(ASSET_FOLDER_TREE_STREAM, 'any', -1);
}

/** Places the folder in the tree (see folder-tree-decider.ts) and answers the slug it gets there. */
async function place(
  ctx: CommandContext,
  { id, parentId, base, create }: { id: number; parentId: number | null; base: string; create: boolean },
): Promise<string> {
  const placed = await changeTree(ctx, (view) => ({
    type: 'PlaceFolder',
    data: { ...view, id, parent_id: parentId, base, create },
  }));
  // The tree decides a PlaceFolder with an AssetFolderPlaced or a refusal (folder-tree-decider.ts).
  if (placed.type !== 'AssetFolderPlaced') throw new Error(`PlaceFolder was decided with ${placed.type}.`);
  return placed.data.slug;
}

export async function createFolder(ctx: CommandContext, input: CreateFolderInput): Promise<number> {
  const title = requireTitle(input.title, 'title');
  const parentId = input.parent_id ?? null;
  // A parent missing from the read models is refused before an id is taken; the tree checks it again.
  if (parentId !== null && !(await folderExists(ctx.documents, parentId))) {
    throw invalid('parent_id', `Folder ${parentId} does not exist.`);
  }
  const id = await nextId(ctx, ASSET_FOLDER_SEQUENCE);
  const slug = await place(ctx, { id, parentId, base: slugify(title), create: true });
  await handleCommand(ctx, {
    stream: assetFolderStream(id),
    decider: assetFolderDecider,
    command: { type: 'CreateAssetFolder', data: { id, ...fieldsOf(AssetFolderFields, { ...input, title, slug }) } },
    newStream: true,
  });
  return id;
}

/**
 * An If-Match is checked before the tree stream is changed, so a stale one changes nothing, and
 * again with the folder's own write, atomically.
 */
async function checkedFirst(
  ctx: CommandContext,
  id: number,
  ifMatch: readonly number[] | undefined,
): Promise<VersionPrecondition | undefined> {
  const precondition = ifMatching(ifMatch, ASSET_FOLDER_VERSIONED);
  if (precondition) checkPrecondition(await ctx.eventStore.readStream(assetFolderStream(id)), precondition);
  return precondition;
}

/**
 * Renames and/or moves a folder; absent keys keep their value. A folder cannot go under
 * itself or any of its descendants. The slug follows a new title and stays unique among the
 * folder's (new) siblings.
 */
export async function updateFolder(
  ctx: CommandContext,
  { id, input, ifMatch }: { id: number; input: UpdateFolderInput; ifMatch?: readonly number[] },
): Promise<void> {
  const current = await findFolder(ctx.documents, id);
  if (!current) throw new NotFoundError('Folder not found.');
  const precondition = await checkedFirst(ctx, id, ifMatch);
  const title = input.title === undefined ? current.title : requireTitle(input.title, 'title');
  const parentId = input.parent_id === undefined ? current.parent_id : input.parent_id;
  let slug = current.slug;
  if (title !== current.title) slug = await place(ctx, { id, parentId, base: slugify(title), create: false });
  else if (parentId !== current.parent_id) slug = await place(ctx, { id, parentId, base: current.slug, create: false });
  await handleCommand(ctx, {
    stream: assetFolderStream(id),
    decider: assetFolderDecider,
    command: { type: 'UpdateAssetFolder', data: { title, slug, parent_id: parentId } },
    ifMatch: precondition,
  });
}

/**
 * Deletes a folder and its subfolders; the assets filed in them are kept (only unfiled). The
 * tree stream names the subfolders, including one whose create placed it and is on its way.
 * Answers the ids deleted, deepest first.
 */
export async function deleteFolder(ctx: CommandContext, id: number, ifMatch?: readonly number[]): Promise<number[]> {
  if (!(await findFolder(ctx.documents, id))) throw new NotFoundError('Folder not found.');
  const precondition = await checkedFirst(ctx, id, ifMatch);
  const removed = await changeTree(ctx, (view) => ({ type: 'RemoveFolder', data: { ...view, id } }));
  // The tree decides a RemoveFolder with an AssetFoldersRemoved or a refusal (folder-tree-decider.ts).
  if (removed.type !== 'AssetFoldersRemoved') throw new Error(`RemoveFolder was decided with ${removed.type}.`);
  const deleted: number[] = [];
  for (const folderId of removed.data.ids) {
    const result = await handleCommand(ctx, {
      stream: assetFolderStream(folderId),
      decider: assetFolderDecider,
      command: { type: 'RemoveAssetFolder', data: { id: folderId } },
      ifMatch: folderId === id ? precondition : undefined,
    });
    if (result.state.status === 'deleted' && result.events.length > 0) deleted.push(folderId);
  }
  return deleted;
}
