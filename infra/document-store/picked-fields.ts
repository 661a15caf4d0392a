import type { Document } from './port.js';

const TOP_LEVEL_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The `fields` of a find, checked: top-level names only, the same in every store. */
export function checkedFields(fields: readonly string[]): string[] {
  for (const field of fields) {
    if (!TOP_LEVEL_FIELD.test(field))
      throw new TypeError(`find fields: "${field}" is not a top-level field name (letters, digits and _).`);
  }
  return fields.filter((field) => field !== '_id');
}

/** `_id` and the asked fields the document holds, as a find with `fields` answers. */
export function pickFields<T extends Document>(doc: T, fields: readonly string[]): T {
  const picked: Document = { _id: doc._id };
  for (const field of checkedFields(fields)) if (Object.hasOwn(doc, field)) picked[field] = doc[field];
  return picked as T;
}
