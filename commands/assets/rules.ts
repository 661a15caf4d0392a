import { ValidationError } from '../../infra/errors.js';

/** The asset library answers every refused input with 400 (its seed's status for a client mistake). */
export function invalid(field: string, message: string): ValidationError {
  return ValidationError.field(field, message, 400);
}

export const MAX_TITLE_LENGTH = 255;
export const MAX_ALT_LENGTH = 1000;
export const MAX_CONTEXT_TYPE_LENGTH = 100;

export function requireTitle(value: string, field: string): string {
  const title = value.trim();
  if (!title) throw invalid(field, `${field} must not be empty.`);
  if (title.length > MAX_TITLE_LENGTH) throw invalid(field, `${field} must be at most ${MAX_TITLE_LENGTH} characters.`);
  return title;
}
