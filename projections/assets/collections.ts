/** The asset library's read-model collections by name. */
export const ASSET_COLLECTIONS = {
  folders: 'asset_folders',
  assets: 'assets',
  usage: 'asset_usage',
} as const;
