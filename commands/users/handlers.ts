import { ConflictError } from '../../infra/errors.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { idFor } from '../sequence.js';
import { userDecider } from './decider.js';
import { userStream } from '../../contracts/users/events.js';
import type { Role } from '../../contracts/users/roles.js';
import { findUserByEmail } from '../../queries/users.js';

/**
 * Secrets reach these commands already hashed by `ctx.hashSecret` (infra/crypto/secret-hash.ts), never in
 * the clear: an importer hashes the next users' secrets while this one's events are written.
 */
export interface RegisterUserInput {
  id?: number;
  email: string;
  name: string;
  role: Role;
  /** null: the user has no password (signs in with an API key only). */
  passwordHash: string | null;
}

export async function registerUser(ctx: CommandContext, input: RegisterUserInput): Promise<number> {
  if (await findUserByEmail(ctx.documents, input.email)) throw new ConflictError('A user with this email exists.');
  const id = await idFor(ctx, 'user', input.id);
  await handleCommand(ctx, {
    stream: userStream(id),
    decider: userDecider,
    command: {
      type: 'RegisterUser',
      data: { id, email: input.email, name: input.name, role: input.role, passwordHash: input.passwordHash },
    },
  });
  return id;
}

export async function createApiKey(
  ctx: CommandContext,
  userId: number,
  key: { identity: string; credentialHash: string; label?: string },
): Promise<void> {
  await handleCommand(ctx, {
    stream: userStream(userId),
    decider: userDecider,
    command: {
      type: 'CreateApiKey',
      data: { identity: key.identity, credentialHash: key.credentialHash, label: key.label ?? '' },
    },
  });
}

export async function revokeApiKey(ctx: CommandContext, userId: number, identity: string): Promise<void> {
  await handleCommand(ctx, {
    stream: userStream(userId),
    decider: userDecider,
    command: { type: 'RevokeApiKey', data: { identity } },
  });
}
