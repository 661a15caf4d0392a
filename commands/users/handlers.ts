import { ConflictError } from '../../infra/errors.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { idFor } from '../sequence.js';
import { userDecider } from './decider.js';
import { userStream } from '../../contracts/users/events.js';
import { ApiKeyFields, UserFields } from '../../contracts/users/fields.js';
import { fieldsOf, type FieldsGiven } from '../../infra/schema/record-fields.js';
import { findUserByEmail } from '../../queries/users.js';

/**
 * Secrets reach these commands already hashed by `ctx.hashSecret` (infra/crypto/secret-hash.ts), never in
 * the clear: an importer hashes the next users' secrets while this one's events are written.
 */
export type RegisterUserInput = { id?: number } & FieldsGiven<typeof UserFields>;

export async function registerUser(ctx: CommandContext, input: RegisterUserInput): Promise<number> {
  if (await findUserByEmail(ctx.documents, input.email)) throw new ConflictError('A user with this email exists.');
  const id = await idFor(ctx, 'user', input.id);
  await handleCommand(ctx, {
    stream: userStream(id),
    decider: userDecider,
    command: {
      type: 'RegisterUser',
      data: { id, ...fieldsOf(UserFields, input) },
    },
  });
  return id;
}

export async function createApiKey(
  ctx: CommandContext,
  userId: number,
  key: FieldsGiven<typeof ApiKeyFields>,
): Promise<void> {
  await handleCommand(ctx, {
    stream: userStream(userId),
    decider: userDecider,
    command: { type: 'CreateApiKey', data: fieldsOf(ApiKeyFields, key) },
  });
}

export async function revokeApiKey(ctx: CommandContext, userId: number, identity: string): Promise<void> {
  await handleCommand(ctx, {
    stream: userStream(userId),
    decider: userDecider,
    command: { type: 'RevokeApiKey', data: { identity } },
  });
}
