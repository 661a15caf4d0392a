import { NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { DomainEvent } from '../../contracts/domain-event.js';
import { invalid } from './rules.js';

/**
 * The folder tree as one stream (`asset_folder_tree`): every create, rename and move of a folder
 * places it there first (its parent and slug), and every delete removes it and its subfolders,
 * each appended at the stream's version. Two writes that would break the tree together (two
 * folders moved into each other, two siblings given one slug, a folder created in one being
 * deleted) cannot both be appended: the second is decided again against the first, in one
 * process or several. The folder's own stream is written after, as before.
 *
 * The stream only knows folders placed since it exists; the read models know the others. So the
 * handler passes every folder the read models know, and the tree is the read models' overlaid
 * with the stream's newer placements. A placement or removal older than ABANDONED_AFTER_MS
 * (`settledThrough`) yields to the read models: by then they show what was written, and one whose
 * folder write never came (a crash between the two) stops counting.
 */
export type AssetFolderPlaced = DomainEvent<
  'AssetFolderPlaced',
  { id: number; parent_id: number | null; slug: string }
>;
/** A folder and every folder below it, deepest first. */
export type AssetFoldersRemoved = DomainEvent<'AssetFoldersRemoved', { ids: number[] }>;
export type FolderTreeEvent = AssetFolderPlaced | AssetFoldersRemoved;

export interface KnownFolder {
  id: number;
  parent_id: number | null;
  slug: string;
}

/** `known`: every folder as the read models have it; `settledThrough`: the stream version up to which its events yield to them. */
interface TreeView {
  known: KnownFolder[];
  settledThrough: number;
}

/**
 * Places a folder under `parent_id` with the first free slug of `base`, `base-2`, ... among its
 * new siblings; `create` says it is new, so it may not be in the tree yet.
 */
export type PlaceFolder = DomainCommand<
  'PlaceFolder',
  TreeView & { id: number; parent_id: number | null; base: string; create: boolean }
>;
export type RemoveFolder = DomainCommand<'RemoveFolder', TreeView & { id: number }>;
export type FolderTreeCommand = PlaceFolder | RemoveFolder;

interface Placement {
  parent_id: number | null;
  slug: string;
  version: number;
}

export interface FolderTreeState {
  version: number;
  placed: ReadonlyMap<number, Placement>;
  /** Removed folder ids, with the version that removed them. */
  removed: ReadonlyMap<number, number>;
}

export const ASSET_FOLDER_TREE_STREAM = 'asset_folder_tree';

type Tree = Map<number, { parent_id: number | null; slug: string }>;

function readModelTree(known: KnownFolder[]): Tree {
  return new Map(known.map((f) => [f.id, { parent_id: f.parent_id, slug: f.slug }]));
}

/** The tree as it stands: the read models', overlaid with the stream's events not yet settled. */
function currentTree(state: FolderTreeState, view: TreeView): Tree {
  const tree = readModelTree(view.known);
  for (const [id, placement] of state.placed) {
    if (placement.version > view.settledThrough) tree.set(id, { parent_id: placement.parent_id, slug: placement.slug });
  }
  for (const [id, version] of state.removed) if (version > view.settledThrough) tree.delete(id);
  return tree;
}

/** Whether `id` is `from` or one of its ancestors in `tree`. */
function isAncestorOrSelf(tree: Tree, id: number, from: number | null): boolean {
  const seen = new Set<number>();
  for (let current = from; current !== null && !seen.has(current); current = tree.get(current)?.parent_id ?? null) {
    if (current === id) return true;
    seen.add(current);
  }
  return false;
}

function freeSlug(tree: Tree, { id, parentId, base }: { id: number; parentId: number | null; base: string }): string {
  const taken = new Set<string>();
  for (const [otherId, folder] of tree) if (otherId !== id && folder.parent_id === parentId) taken.add(folder.slug);
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

function deepestFirst(tree: Tree, id: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const [childId, folder] of tree) {
    if (folder.parent_id !== null)
      childrenOf.set(folder.parent_id, [...(childrenOf.get(folder.parent_id) ?? []), childId]);
  }
  const out: number[] = [];
  const seen = new Set([id]);
  const visit = (folderId: number): void => {
    for (const child of childrenOf.get(folderId) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      visit(child);
      out.push(child);
    }
  };
  visit(id);
  out.push(id);
  return out;
}

export const folderTreeDecider: Decider<FolderTreeState, FolderTreeCommand, FolderTreeEvent> = {
  initialState: () => ({ version: 0, placed: new Map(), removed: new Map() }),

  evolve(state, event) {
    const version = state.version + 1;
    switch (event.type) {
      case 'AssetFolderPlaced': {
        const { id, parent_id, slug } = event.data;
        // A removal is final (a deleted folder never comes back): a placement decided before it and appended after it is void.
        if (state.removed.has(id)) return { ...state, version };
        return { version, placed: new Map(state.placed).set(id, { parent_id, slug, version }), removed: state.removed };
      }
      case 'AssetFoldersRemoved': {
        const placed = new Map(state.placed);
        const removed = new Map(state.removed);
        for (const id of event.data.ids) {
          placed.delete(id);
          removed.set(id, version);
        }
        return { version, placed, removed };
      }
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'PlaceFolder': {
        const { id, parent_id, base, create } = command.data;
        const tree = currentTree(state, command.data);
        if (!create && !tree.has(id)) throw new NotFoundError('Folder not found.');
        if (parent_id === id) throw invalid('parent_id', 'A folder cannot be moved into itself.');
        if (parent_id !== null && !tree.has(parent_id))
          throw invalid('parent_id', `Folder ${parent_id} does not exist.`);
        // Both the current tree and the read models' alone must stay free of cycles, so that a
        // placement whose folder write never came cannot hide one.
        if (
          isAncestorOrSelf(tree, id, parent_id) ||
          isAncestorOrSelf(readModelTree(command.data.known), id, parent_id)
        ) {
          throw invalid('parent_id', 'A folder cannot be moved into itself or one of its own subfolders.');
        }
        return [
          {
            type: 'AssetFolderPlaced',
            data: { id, parent_id, slug: freeSlug(tree, { id, parentId: parent_id, base }) },
          },
        ];
      }
      case 'RemoveFolder': {
        const tree = currentTree(state, command.data);
        if (!tree.has(command.data.id)) throw new NotFoundError('Folder not found.');
        return [{ type: 'AssetFoldersRemoved', data: { ids: deepestFirst(tree, command.data.id) } }];
      }
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
