import type { FastifyRequest } from 'fastify';
import { KEY_OR_SESSION, type Principal } from '../http/auth.js';
import { isEditorOrAbove } from '../../contracts/users/roles.js';
import { ForbiddenError, ValidationError } from '../../infra/errors.js';
import type { BlogPostDoc } from '../../contracts/blog/documents.js';

/** Who reads a native blog resource: Editor and above see everything, everyone else the public site. */
export interface Viewer {
  user: Principal | null;
  seesEverything: boolean;
}

export async function nativeViewer(request: FastifyRequest): Promise<Viewer> {
  const user = await request.principal(KEY_OR_SESSION);
  return { user, seesEverything: isEditorOrAbove(user?.role) };
}

/** Native writes need Editor and above; anonymous callers and lower roles get 403. */
export async function requireEditor(request: FastifyRequest): Promise<Principal> {
  const user = await request.principal(KEY_OR_SESSION);
  if (!user || !isEditorOrAbove(user.role)) throw new ForbiddenError('Editor or above is required for this operation.');
  return user;
}

/** What the public site shows: published, and the publish time has come. */
export function isPublic(post: BlogPostDoc, now: string): boolean {
  return post.status === 'published' && post.published_at !== null && post.published_at <= now;
}

/** `exclude_future` takes 1/true and 0/false. */
export function parseFlag(value: string | undefined, field: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw ValidationError.field(field, `${field} must be 1, true, 0 or false.`);
}

/** An allowed value, or a 422 naming the field. */
export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  field: string,
): T | undefined {
  if (value === undefined || value === '') return undefined;
  const found = allowed.find((candidate) => candidate === value);
  if (found !== undefined) return found;
  throw ValidationError.field(field, `${field} must be one of ${allowed.join(', ')}.`);
}

/** Empty query values mean "no filter". */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

type Security = { [scheme: string]: string[] }[];

/** OpenAPI security of native resources: an API key pair, a session, or anonymous where allowed. */
export const NATIVE_SECURITY: Security = [{ apiKeyIdentity: [], apiKeyCredential: [] }, { session: [] }, {}];
export const SESSION_SECURITY: Security = [{ session: [] }, {}];
