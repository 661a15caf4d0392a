import type { FastifyRequest } from 'fastify';
import { SESSION_ONLY, type Principal } from '../../app/auth.js';
import { isEditorOrAbove, type Role } from '../../commands/users/roles.js';
import { ForbiddenError, UnauthorizedError } from '../../infra/errors.js';

/** Authors and reviewers read the asset library; editors and above also write. */
export function canReadAssets(role: Role): boolean {
  return isEditorOrAbove(role) || role === 'author' || role === 'reviewer';
}

/** The asset library knows only the login session: API key parameters are not recognised. */
async function sessionUser(request: FastifyRequest): Promise<Principal> {
  const user = await request.principal(SESSION_ONLY);
  if (!user) throw new UnauthorizedError('Log in to use the asset library.');
  return user;
}

export async function requireAssetReader(request: FastifyRequest): Promise<Principal> {
  const user = await sessionUser(request);
  if (!canReadAssets(user.role)) throw new ForbiddenError('Your role does not give access to the asset library.');
  return user;
}

export async function requireAssetWriter(request: FastifyRequest): Promise<Principal> {
  const user = await sessionUser(request);
  if (!isEditorOrAbove(user.role)) throw new ForbiddenError('Editor or above is required to change the asset library.');
  return user;
}

/** Route hooks so the role is checked before the body is validated (a refused caller learns nothing about it). */
export const readersOnly = { preValidation: async (request: FastifyRequest) => void (await requireAssetReader(request)) };
export const writersOnly = { preValidation: async (request: FastifyRequest) => void (await requireAssetWriter(request)) };
