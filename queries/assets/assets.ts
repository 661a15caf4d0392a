import type { DocumentStore, Filter, SortSpec } from '../../infra/document-store/port.js';
import { assetDocs, assetUsage, type AssetDoc, type AssetUsageDoc } from '../../contracts/assets/documents.js';

export interface AssetListQuery {
  page: number;
  perPage: number;
  sortBy: 'id' | 'name';
  sortOrder: 'asc' | 'desc';
  folderId?: number;
  search?: string;
}

export interface AssetPage {
  assets: AssetDoc[];
  total: number;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A page of assets: filtered by folder and by a case-insensitive substring of the name (title). */
export async function listAssets(documents: DocumentStore, query: AssetListQuery): Promise<AssetPage> {
  const filter: Filter = {};
  if (query.folderId !== undefined) filter.folders = query.folderId;
  const search = query.search?.trim();
  if (search) filter.title = { $regex: escapeRegex(search), $options: 'i' };
  const direction = query.sortOrder === 'asc' ? 1 : -1;
  const sort: SortSpec = query.sortBy === 'name' ? { title_sort: direction, id: direction } : { id: direction };
  const collection = assetDocs(documents);
  const [assets, total] = await Promise.all([
    collection.find(filter, { sort, skip: (query.page - 1) * query.perPage, limit: query.perPage }),
    collection.count(filter),
  ]);
  return { assets, total };
}

export function findAsset(documents: DocumentStore, id: number): Promise<AssetDoc | null> {
  return assetDocs(documents).findOne({ _id: id });
}

/** The assets among these ids that exist, in no particular order. */
export function findAssets(documents: DocumentStore, ids: number[]): Promise<AssetDoc[]> {
  return assetDocs(documents).find({ _id: { $in: ids } });
}

export const USAGE_LIST_LIMIT = 100;

/** The most recent usage records of an asset, newest first. */
export function recentUsage(documents: DocumentStore, assetId: number): Promise<AssetUsageDoc[]> {
  return assetUsage(documents).find({ asset_id: assetId }, { sort: { id: -1 }, limit: USAGE_LIST_LIMIT });
}

export function findUsage(documents: DocumentStore, usageId: number): Promise<AssetUsageDoc | null> {
  return assetUsage(documents).findOne({ _id: usageId });
}
