import { ValidationError } from '../../infra/errors.js';
import { MAX_TITLE_LENGTH } from '../../contracts/assets/fields.js';

/** The asset library answers every refused input with 400 (its seed's status for a client mistake). */
export function invalid(field: string, message: string): ValidationError {
  return ValidationError.field(field, message, 400);
}

export { MAX_ALT_LENGTH, MAX_TITLE_LENGTH } from '../../contracts/assets/fields.js';
export const MAX_CONTEXT_TYPE_LENGTH = 100;

export function requireTitle(value: string, field: string): string {
  const title = value.trim();
  if (!title) throw invalid(field, `${field} must not be empty.`);
  if (title.length > MAX_TITLE_LENGTH) throw invalid(field, `${field} must be at most ${MAX_TITLE_LENGTH} characters.`);
  return title;
}
