import { Type, type Static } from '@sinclair/typebox';
import { withDefault } from '../../infra/schema/record-fields.js';
import { ROLES } from './roles.js';

/*
 * A user's and an API key's fields, declared once: the events carry them (events.ts), the read
 * model keeps them (documents.ts), the commands take them (commands/users/), and the fixture's
 * users (commands/users/importer.ts), which give secrets in the clear where these hold hashes,
 * are derived from them.
 */

/** What the decider takes for an email address (and the fixture's schema with it). */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';

export const UserFields = Type.Object({
  /** Kept lower-cased (the decider does it). */
  email: Type.String({ minLength: 3, pattern: EMAIL_PATTERN }),
  name: Type.String({ minLength: 1 }),
  role: Type.Union(ROLES.map((role) => Type.Literal(role))),
  /** Hashed by `ctx.hashSecret` (infra/crypto/secret-hash.ts), never in the clear; null: no password (an API key only). */
  passwordHash: withDefault(Type.Union([Type.String(), Type.Null()]), null),
});
export type UserFields = Static<typeof UserFields>;

export const ApiKeyFields = Type.Object({
  identity: Type.String({ minLength: 1 }),
  /** Hashed as a password is. */
  credentialHash: Type.String(),
  label: withDefault(Type.String(), ''),
});
export type ApiKeyFields = Static<typeof ApiKeyFields>;
