/**
 * A document this store wrote (the JSON text of a document of its collection), read back from
 * its own SQLite file. The document's type is its caller's (`Collection<T>`), which no schema
 * here knows, and the file is the store's own: this is the one cast of a stored document, so
 * ESLint's refusal of `JSON.parse(...) as X` (eslint.config.js) keeps every other one out.
 */
export function parseStoredDocument<T>(json: string): T {
  // eslint-disable-next-line no-restricted-syntax -- the one cast of a stored document (see above)
  return JSON.parse(json) as T;
}
