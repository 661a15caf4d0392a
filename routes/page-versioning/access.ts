import type { FastifyRequest } from 'fastify';
import { SESSION_ONLY, type Principal } from '../http/auth.js';
import { isEditorOrAbove } from '../../contracts/users/roles.js';
import { ForbiddenError } from '../../infra/errors.js';

/** Page version history knows login sessions only; API keys are not recognised (seed). */
export async function requireSession(request: FastifyRequest): Promise<Principal> {
  const user = await request.principal(SESSION_ONLY);
  if (!user) throw new ForbiddenError('A login session is required.');
  return user;
}

export async function requireEditor(request: FastifyRequest): Promise<Principal> {
  const user = await requireSession(request);
  if (!isEditorOrAbove(user.role)) throw new ForbiddenError('Reverting a page needs the Editor role or higher.');
  return user;
}
