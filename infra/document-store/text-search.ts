import type { TextSearchSpec } from './port.js';
import { UnsupportedQueryError } from './sql-paths.js';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The declared text fields, checked: top-level names, at least one, no repeats. */
export function textFields(spec: TextSearchSpec): string[] {
  const fields = [...spec.fields];
  if (fields.length === 0) throw new UnsupportedQueryError('a text search needs at least one field.');
  for (const field of fields) {
    if (!FIELD_NAME.test(field) || field === '_id')
      throw new UnsupportedQueryError(`the text field "${field}" must be a top-level field name other than _id.`);
  }
  if (new Set(fields).size !== fields.length) throw new UnsupportedQueryError('a text field is declared twice.');
  return fields;
}

/** A field's text as searches compare it: lowercased by JavaScript; anything but a string is no text. */
export function searchableText(value: unknown): string {
  return typeof value === 'string' ? value.toLowerCase() : '';
}

/** The reference semantics of a text search (the in-memory store's, and what the others must equal). */
export function containsText(doc: Record<string, unknown>, fields: readonly string[], text: string): boolean {
  const needle = text.toLowerCase();
  for (const field of fields) if (searchableText(doc[field]).includes(needle)) return true;
  return false;
}

/** The text as a literal regular expression source (MongoDB's $regex). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Refuses a text search on a collection that declared no text fields: the caller forgot the declaration. */
export function requireTextFields(collection: string, fields: readonly string[] | null): readonly string[] {
  if (!fields) throw new UnsupportedQueryError(`collection ${collection} declares no text fields to search.`);
  return fields;
}
