import { Type, type Static } from '@sinclair/typebox';
import { duplicateIdProblems, fixtureList, fixtureObject, schemaProblems, type FixtureImporter, type FixtureProblem } from '../../app/fixture.js';
import { findApiKey, findUserByEmail } from '../../queries/users.js';
import { createApiKey, registerUser } from './handlers.js';
import { userStream } from './events.js';
import { ROLES } from './roles.js';

const UserSchema = fixtureObject({
  id: Type.Optional(Type.Integer({ minimum: 1 })),
  email: Type.String({ minLength: 3, pattern: '^[^\\s@]+@[^\\s@]+$' }),
  name: Type.String({ minLength: 1 }),
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
  password: Type.Optional(Type.String({ minLength: 1 })),
  api_keys: Type.Optional(
    Type.Array(
      fixtureObject({
        identity: Type.String({ minLength: 1 }),
        credential: Type.String({ minLength: 1 }),
        label: Type.Optional(Type.String()),
      }),
    ),
  ),
});
type UserInput = Static<typeof UserSchema>;

/** Users with hashed passwords and API keys (CONTRACT.md section 4). */
export const usersImporter: FixtureImporter = {
  order: 10,
  sections: { users: Type.Array(UserSchema) },
  async validate(fixture, runtime) {
    if (fixture.users === undefined) return [];
    const problems = schemaProblems(Type.Array(UserSchema), fixture.users, '$.users');
    if (problems.length) return problems;
    const users = fixtureList<UserInput>(fixture, 'users');
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
  count: (fixture) => fixtureList(fixture, 'users').length,
  async import(fixture, runtime, progress) {
    const ctx = runtime.commandContext(null);
    for (const user of fixtureList<UserInput>(fixture, 'users')) {
      const id = await registerUser(ctx, { id: user.id, email: user.email, name: user.name, role: user.role, password: user.password ?? null });
      for (const key of user.api_keys ?? []) await createApiKey(ctx, id, key);
      progress.tick();
    }
  },
};
