import { Type, type Static } from '@sinclair/typebox';
import { pMapIterable } from 'p-map';
import {
  duplicateIdProblems,
  fixtureFields,
  fixtureObject,
  fixtureSection,
  schemaProblems,
  type Fixture,
  type FixtureImporter,
  type FixtureProblem,
} from '../fixture.js';
import { findApiKey, findUserByEmail } from '../../queries/users.js';
import { scryptMemoryBytes, type SecretHasher } from '../../infra/crypto/secret-hash.js';
import { createApiKey, registerUser } from './handlers.js';
import { userStream } from '../../contracts/users/events.js';
import { ApiKeyFields, UserFields } from '../../contracts/users/fields.js';

/** A secret as the fixture gives it: in the clear, hashed on import. */
const Secret = Type.String({ minLength: 1 });
/** Each record as its create takes it (contracts/users/fields.ts), with its secrets in the clear instead of hashed. */
const { passwordHash: _passwordHash, ...userFields } = UserFields.properties;
const { identity, credentialHash: _credentialHash, ...keyFields } = ApiKeyFields.properties;
const UserSchema = fixtureObject({
  id: Type.Optional(Type.Integer({ minimum: 1 })),
  ...fixtureFields(userFields),
  password: Type.Optional(Secret),
  api_keys: Type.Optional(Type.Array(fixtureObject({ identity, credential: Secret, ...fixtureFields(keyFields) }))),
});
type UserInput = Static<typeof UserSchema>;

/**
 * scrypt runs on libuv's pool (four threads by default): hashing one user after another left a
 * core idle, 80 ms a user at the default cost (a password and a key). Up to four users are
 * hashed at once, as many as 64 MiB of scrypt memory allows: four at the default cost, one
 * from 2^16 up.
 */
const MOST_USERS_HASHED_AT_ONCE = 4;
const HASH_MEMORY_BUDGET = 64 * 2 ** 20;

function usersHashedAtOnce(cost: number): number {
  return Math.max(1, Math.min(MOST_USERS_HASHED_AT_ONCE, Math.floor(HASH_MEMORY_BUDGET / scryptMemoryBytes(cost))));
}

interface HashedUser {
  user: UserInput;
  passwordHash: string | null;
  /** In the order of `user.api_keys`. */
  credentialHashes: string[];
}

/** One user's secrets, one hash after another (the users hashed at once bound the memory). */
async function hashUser(hashSecret: SecretHasher, user: UserInput): Promise<HashedUser> {
  const passwordHash = user.password ? await hashSecret(user.password) : null;
  const credentialHashes: string[] = [];
  for (const key of user.api_keys ?? []) credentialHashes.push(await hashSecret(key.credential));
  return { user, passwordHash, credentialHashes };
}

const UsersSchema = Type.Array(UserSchema);

/** The users of the fixture, checked against their schema (fixtureSection); absent or not matching: none. */
function usersOf(fixture: Fixture): UserInput[] {
  return fixtureSection(fixture, 'users', UsersSchema) ?? [];
}

/** Users with hashed passwords and API keys (CONTRACT.md section 4). */
export const usersImporter: FixtureImporter = {
  order: 10,
  sections: { users: Type.Array(UserSchema) },
  async validate(fixture, runtime) {
    if (fixture.users === undefined) return [];
    const problems = schemaProblems(Type.Array(UserSchema), fixture.users, '$.users');
    if (problems.length) return problems;
    const users = usersOf(fixture);
    const out: FixtureProblem[] = duplicateIdProblems(users, '$.users');
    const emails = new Set<string>();
    const identities = new Set<string>();
    for (const [i, user] of users.entries()) {
      const email = user.email.toLowerCase();
      if (emails.has(email) || (await findUserByEmail(runtime.documents, email))) {
        out.push({ path: `$.users[${i}].email`, message: 'Email already in use.' });
      }
      emails.add(email);
      if (user.id !== undefined && (await runtime.eventStore.readLastEvent(userStream(user.id)))) {
        out.push({ path: `$.users[${i}].id`, message: `User ${user.id} already exists.` });
      }
      for (const [k, key] of (user.api_keys ?? []).entries()) {
        if (identities.has(key.identity) || (await findApiKey(runtime.documents, key.identity))) {
          out.push({ path: `$.users[${i}].api_keys[${k}].identity`, message: 'API key identity already in use.' });
        }
        identities.add(key.identity);
      }
    }
    return out;
  },
  count: (fixture) => usersOf(fixture).length,
  async import(fixture, runtime, { progress }) {
    const ctx = runtime.commandContext(null);
    // In the fixture's order (ids taken in turn), each user's secrets hashed while earlier users are written.
    const atOnce = usersHashedAtOnce(runtime.config.secretHashCost);
    const hashed = pMapIterable(usersOf(fixture), (user) => hashUser(ctx.hashSecret, user), {
      concurrency: atOnce,
      backpressure: atOnce,
    });
    for await (const { user, passwordHash, credentialHashes } of hashed) {
      const { password: _password, api_keys: keys = [], ...fields } = user;
      const id = await registerUser(ctx, { ...fields, passwordHash });
      for (const [k, { credential: _credential, ...key }] of keys.entries()) {
        await createApiKey(ctx, id, { ...key, credentialHash: credentialHashes[k] });
      }
      progress.tick();
    }
  },
};
