import { NotFoundError } from '../../infra/errors.js';
import { slugify, uniqueSlug } from '../../infra/text/slug.js';
import { ancestorIds, descendantIdsDeepestFirst, findFolder, folderExists, siblingSlugTaken } from '../../queries/assets/folders.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { nextId } from '../sequence.js';
import { ASSET_FOLDER_SEQUENCE, assetFolderStream } from './events.js';
import { assetFolderDecider } from './folder-decider.js';
import { invalid, requireTitle } from './rules.js';

async function requireParent(ctx: CommandContext, parentId: number | null): Promise<void> {
  if (parentId !== null && !(await folderExists(ctx.documents, parentId))) {
    throw invalid('parent_id', `Folder ${parentId} does not exist.`);
  }
}

/**
 * Folder writes check the tree (a free sibling slug, no folder under its own descendant, the
 * parent still there) before they write, so they take turns: they are few, and one key keeps
 * every such check true until the write it guards is projected.
 */
const FOLDER_TREE = 'asset-folder-tree';

function freeSlug(ctx: CommandContext, title: string, parentId: number | null, exceptId: number | null): Promise<string> {
  return uniqueSlug(slugify(title), (slug) => siblingSlugTaken(ctx.documents, parentId, slug, exceptId));
}

export function createFolder(ctx: CommandContext, input: { title: string; parent_id: number | null }): Promise<number> {
  return ctx.exclusive.run(FOLDER_TREE, () => createFolderInTree(ctx, input));
}

async function createFolderInTree(ctx: CommandContext, input: { title: string; parent_id: number | null }): Promise<number> {
  const title = requireTitle(input.title, 'title');
  await requireParent(ctx, input.parent_id);
  const slug = await freeSlug(ctx, title, input.parent_id, null);
  const id = await nextId(ctx, ASSET_FOLDER_SEQUENCE);
  await handleCommand(ctx, assetFolderStream(id), assetFolderDecider, {
    type: 'CreateAssetFolder',
    data: { id, title, slug, parent_id: input.parent_id },
  });
  return id;
}

/**
 * Renames and/or moves a folder; absent keys keep their value. A folder cannot go under
 * itself or any of its descendants. The slug follows a new title and stays unique among the
 * folder's (new) siblings.
 */
export function updateFolder(ctx: CommandContext, id: number, input: { title?: string; parent_id?: number | null }): Promise<void> {
  return ctx.exclusive.run(FOLDER_TREE, () => updateFolderInTree(ctx, id, input));
}

async function updateFolderInTree(ctx: CommandContext, id: number, input: { title?: string; parent_id?: number | null }): Promise<void> {
  const current = await findFolder(ctx.documents, id);
  if (!current) throw new NotFoundError('Folder not found.');
  const title = input.title === undefined ? current.title : requireTitle(input.title, 'title');
  const parentId = input.parent_id === undefined ? current.parent_id : input.parent_id;
  if (parentId !== current.parent_id) {
    await requireParent(ctx, parentId);
    if (parentId !== null && (await ancestorIds(ctx.documents, parentId)).includes(id)) {
      throw invalid('parent_id', 'A folder cannot be moved into itself or one of its own subfolders.');
    }
  }
  let slug = current.slug;
  if (title !== current.title) slug = await freeSlug(ctx, title, parentId, id);
  else if (parentId !== current.parent_id) slug = await uniqueSlug(current.slug, (s) => siblingSlugTaken(ctx.documents, parentId, s, id));
  await handleCommand(ctx, assetFolderStream(id), assetFolderDecider, { type: 'UpdateAssetFolder', data: { title, slug, parent_id: parentId } });
}

/** Deletes a folder and its subfolders; the assets filed in them are kept (only unfiled). */
export function deleteFolder(ctx: CommandContext, id: number): Promise<number[]> {
  return ctx.exclusive.run(FOLDER_TREE, () => deleteFolderInTree(ctx, id));
}

async function deleteFolderInTree(ctx: CommandContext, id: number): Promise<number[]> {
  if (!(await findFolder(ctx.documents, id))) throw new NotFoundError('Folder not found.');
  const ids = [...(await descendantIdsDeepestFirst(ctx.documents, id)), id];
  for (const folderId of ids) {
    await handleCommand(ctx, assetFolderStream(folderId), assetFolderDecider, { type: 'DeleteAssetFolder', data: {} });
  }
  return ids;
}
