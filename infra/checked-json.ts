import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { errorMessage } from './errors.js';

/**
 * Data from outside the process (a file read back, a message, a line of an archive) is checked
 * against its schema, whose Static type it then has, never cast: these say what is wrong with it
 * in words that name where.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * The first thing `value` lacks to match `schema`, as its JSON pointer and TypeBox's message
 * (`/metadata/at: Expected string`; the message alone when the whole value is wrong), or null.
 */
export function schemaProblem(schema: TSchema, value: unknown): string | null {
  const first = Value.Errors(schema, value).First();
  if (first === undefined) return null;
  return first.path === '' ? first.message : `${first.path}: ${first.message}`;
}

/** `value` with its schema's type, or the first thing it lacks. */
export function checked<T extends TSchema>(schema: T, value: unknown): Checked<Static<T>> {
  if (Value.Check(schema, value)) return { ok: true, value };
  return { ok: false, problem: schemaProblem(schema, value) ?? 'Does not match its schema' };
}

/** JSON text parsed and checked against its schema; a text that is not JSON says so. */
export function parseChecked<T extends TSchema>(schema: T, text: string): Checked<Static<T>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `Not JSON (${errorMessage(error)})` };
  }
  return checked(schema, value);
}

/** JSON text parsed and checked, or an Error naming `what` with the first thing it lacks. */
export function parseCheckedOrThrow<T extends TSchema>(schema: T, text: string, what: string): Static<T> {
  const parsed = parseChecked(schema, text);
  if (parsed.ok) return parsed.value;
  throw new Error(`${what} is not what was expected: ${parsed.problem}.`);
}

/** A parsed value (a fetch answer's `json()`) checked, or an Error naming `what` with the first thing it lacks. */
export function checkedOrThrow<T extends TSchema>(schema: T, value: unknown, what: string): Static<T> {
  const result = checked(schema, value);
  if (result.ok) return result.value;
  throw new Error(`${what} is not what was expected: ${result.problem}.`);
}
