import type { DocumentStore } from '../../infra/document-store/port.js';
import { assetDocs, assetFolders, type AssetFolderDoc } from '../../contracts/assets/documents.js';

export interface FolderNode {
  id: number;
  /** The folder's version (its ETag's), when its document keeps one. */
  version?: number;
  title: string;
  slug: string;
  parent_id: number | null;
  /** Assets filed directly in this folder (not in its subfolders). */
  asset_count: number;
  children: FolderNode[];
}

function byTitle(a: AssetFolderDoc, b: AssetFolderDoc): number {
  return a.title.localeCompare(b.title, 'en', { sensitivity: 'base' }) || a.id - b.id;
}

async function assetCounts(documents: DocumentStore): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const asset of await assetDocs(documents).find({ 'folders.0': { $exists: true } })) {
    for (const folderId of asset.folders) counts.set(folderId, (counts.get(folderId) ?? 0) + 1);
  }
  return counts;
}

function buildNodes(all: AssetFolderDoc[], counts: Map<number, number>): Map<number, FolderNode> {
  const nodes = new Map<number, FolderNode>();
  for (const folder of [...all].sort(byTitle)) {
    nodes.set(folder.id, {
      id: folder.id,
      version: folder.version,
      title: folder.title,
      slug: folder.slug,
      parent_id: folder.parent_id,
      asset_count: counts.get(folder.id) ?? 0,
      children: [],
    });
  }
  for (const node of nodes.values()) {
    if (node.parent_id !== null) nodes.get(node.parent_id)?.children.push(node);
  }
  return nodes;
}

/** Every folder as a tree: the top-level folders with their children nested, by title. */
export async function folderTree(documents: DocumentStore): Promise<FolderNode[]> {
  const nodes = buildNodes(await assetFolders(documents).find({}), await assetCounts(documents));
  return [...nodes.values()].filter((node) => node.parent_id === null || !nodes.has(node.parent_id));
}

/** One folder with its subtree, or null. */
export async function folderWithChildren(documents: DocumentStore, id: number): Promise<FolderNode | null> {
  if (!(await assetFolders(documents).findOne({ _id: id }))) return null;
  const nodes = buildNodes(await assetFolders(documents).find({}), await assetCounts(documents));
  return nodes.get(id) ?? null;
}

export function findFolder(documents: DocumentStore, id: number): Promise<AssetFolderDoc | null> {
  return assetFolders(documents).findOne({ _id: id });
}

export async function folderExists(documents: DocumentStore, id: number): Promise<boolean> {
  return (await assetFolders(documents).findOne({ _id: id })) !== null;
}

/** The ids on the way from a folder up to the root, starting with the folder itself. */
export async function ancestorIds(documents: DocumentStore, id: number): Promise<number[]> {
  const path: number[] = [];
  let current: number | null = id;
  while (current !== null && !path.includes(current)) {
    path.push(current);
    const folder: AssetFolderDoc | null = await assetFolders(documents).findOne({ _id: current });
    current = folder?.parent_id ?? null;
  }
  return path;
}

/** Every folder below this one, deepest first (so each can be deleted before its parent). */
export async function descendantIdsDeepestFirst(documents: DocumentStore, id: number): Promise<number[]> {
  const all = await assetFolders(documents).find({});
  const childrenOf = new Map<number, number[]>();
  for (const folder of all) {
    if (folder.parent_id !== null)
      childrenOf.set(folder.parent_id, [...(childrenOf.get(folder.parent_id) ?? []), folder.id]);
  }
  const out: number[] = [];
  const visit = (folderId: number, seen: Set<number>) => {
    for (const child of childrenOf.get(folderId) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      visit(child, seen);
      out.push(child);
    }
  };
  visit(id, new Set([id]));
  return out;
}
