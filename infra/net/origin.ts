/** Whether the value is an absolute http or https URL. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The canonical form of a web origin (`https://library.example.edu`, no path, lower-case host,
 * default port dropped), or null when the text is not an origin. Browsers send Origin in this
 * form, so allowed origins are stored in it and compared as plain strings.
 */
export function normalizeOrigin(value: string): string | null {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (!isHttpUrl(trimmed)) return null;
  const url = new URL(trimmed);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
  return url.origin;
}
