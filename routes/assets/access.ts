import type { FastifyRequest } from 'fastify';
import { SESSION_ONLY, type Principal } from '../http/auth.js';
import { isEditorOrAbove } from '../../contracts/users/roles.js';
import { ForbiddenError, UnauthorizedError } from '../../infra/errors.js';

/**
 * Who may call which asset route is in app/permissions.ts (authors and reviewers read, editors and
 * above write); the writers' handlers still ask for the user they act as. The asset library knows
 * only the login session: API key parameters are not recognised.
 */
async function sessionUser(request: FastifyRequest): Promise<Principal> {
  const user = await request.principal(SESSION_ONLY);
  if (!user) throw new UnauthorizedError('Log in to use the asset library.');
  return user;
}

export async function requireAssetWriter(request: FastifyRequest): Promise<Principal> {
  const user = await sessionUser(request);
  if (!isEditorOrAbove(user.role)) throw new ForbiddenError('Editor or above is required to change the asset library.');
  return user;
}
