import type { AssetDoc, AssetUsageDoc } from '../../contracts/assets/documents.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

/** The public URL of an asset's file: stable across replacements, since the extension is kept. */
export function canonicalUrl(baseUrl: string, asset: Pick<AssetDoc, 'id' | 'extension'>): string {
  return `${baseUrl}/asset-files/${asset.id}${asset.extension ? `.${asset.extension}` : ''}`;
}

export function representAsset(asset: AssetDoc, baseUrl: string) {
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

export function representUsage(usage: AssetUsageDoc) {
  return {
    id: usage.id,
    asset_id: usage.asset_id,
    context_type: usage.context_type,
    context_id: usage.context_id,
    user_id: usage.user_id,
    created_at: sqlTimestamp(usage.created_at),
  };
}
