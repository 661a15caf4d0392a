/** The tracked redirect that opens a database and counts the click. */
export function openUrl(baseUrl: string, handle: string): string {
  return `${baseUrl}/directory/go/${encodeURIComponent(handle)}`;
}

/** The database's server-rendered details page. */
export function detailsUrl(baseUrl: string, handle: string): string {
  return `${baseUrl}/directory/databases/${encodeURIComponent(handle)}`;
}
