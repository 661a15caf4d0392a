/**
 * The asset library's read models as its queries read them: each document type and collection
 * is declared beside the projection that writes it (projections/assets/), and only named here.
 */
export { assetDocs, type AssetDoc } from '../../projections/assets/assets.js';
export { ASSET_COLLECTIONS } from '../../projections/assets/collections.js';
export { assetFolders, type AssetFolderDoc } from '../../projections/assets/folders.js';
export { assetUsage, type AssetUsageDoc } from '../../projections/assets/usage.js';
