import type { Static } from '@sinclair/typebox';
import type { AssetDoc, AssetUsageDoc } from '../../contracts/assets/documents.js';
import { findAsset, findUsage } from '../../queries/assets/assets.js';
import { folderWithChildren, type FolderNode } from '../../queries/assets/folders.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import { recordAnswers } from '../http/record-answers.js';
import type { AssetSchema, FolderSchema, UsageSchema } from './schemas.js';

/** What the asset library answers, each the Static type of its response schema (so tsc checks the representations). */
export type Asset = Static<typeof AssetSchema>;
export type Folder = Static<typeof FolderSchema>;
export type Usage = Static<typeof UsageSchema>;

/** The public URL of an asset's file: stable across replacements, since the extension is kept. */
export function canonicalUrl(baseUrl: string, asset: Pick<AssetDoc, 'id' | 'extension'>): string {
  return `${baseUrl}/asset-files/${asset.id}${asset.extension ? `.${asset.extension}` : ''}`;
}

export function representAsset(asset: AssetDoc, baseUrl: string): Asset {
  return {
    id: asset.id,
    filename: asset.filename,
    mime_type: asset.mime_type,
    canonical_url: canonicalUrl(baseUrl, asset),
    created_at: asset.created_at ? sqlTimestamp(asset.created_at) : null,
    metadata: { title: asset.title, alt: asset.alt },
    folders: asset.folders,
  };
}

/** A folder with its subfolders, each of the same shape. */
export function representFolder(folder: FolderNode): Folder {
  return {
    id: folder.id,
    title: folder.title,
    slug: folder.slug,
    parent_id: folder.parent_id,
    asset_count: folder.asset_count,
    children: folder.children.map(representFolder),
  };
}

export function representUsage(usage: AssetUsageDoc): Usage {
  return {
    id: usage.id,
    asset_id: usage.asset_id,
    context_type: usage.context_type,
    context_id: usage.context_id,
    user_id: usage.user_id,
    created_at: sqlTimestamp(usage.created_at),
  };
}

/** An asset as its routes answer it: `{status, asset}` (routes/http/record-answers.ts). */
export function assetAnswers(documents: DocumentStore, baseUrl: string) {
  return recordAnswers({
    find: (id) => findAsset(documents, id),
    notFound: 'Asset not found.',
    represent: (asset) => ({ status: 'success' as const, asset: representAsset(asset, baseUrl) }),
  });
}

/** A folder with its subfolders, as its routes answer it: `{status, folder}`. */
export function folderAnswers(documents: DocumentStore) {
  return recordAnswers({
    find: (id) => folderWithChildren(documents, id),
    notFound: 'Folder not found.',
    represent: (folder) => ({ status: 'success' as const, folder: representFolder(folder) }),
  });
}

/** A usage record as its routes answer it: `{status, usage}`. */
export function usageAnswers(documents: DocumentStore) {
  return recordAnswers({
    find: (id) => findUsage(documents, id),
    notFound: 'Usage record not found.',
    represent: (usage) => ({ status: 'success' as const, usage: representUsage(usage) }),
  });
}
