/** The OpenAPI tag of routes about the process rather than the site's data (backups do not export them). */
export const OPERATIONS_TAG = 'operations';
