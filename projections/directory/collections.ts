/** The directory's read-model collections by name. */
export const DIRECTORY_COLLECTIONS = {
  library: 'directory_library',
  tokens: 'directory_tokens',
  subjects: 'directory_subjects',
  types: 'directory_types',
  databases: 'directory_databases',
  lists: 'directory_lists',
  clicks: 'directory_clicks',
} as const;
