import t from 'tap';
import { findApiKey, findUserByEmail } from '../../../queries/users.js';
import { buildTestApp, keyFor, ROLE_USERS } from '../../helper.js';

const editor = ROLE_USERS.filter((u) => u.role === 'editor');

for (const cost of [16384, 2048]) {
  t.test(
    `SECRET_HASH_COST=${cost}: imported passwords and API credentials are hashed at it, and sign in`,
    async (t) => {
      const { app, runtime } = await buildTestApp(t, { fixture: { users: editor }, config: { secretHashCost: cost } });
      const user = await findUserByEmail(runtime.documents, 'editor@example.org');
      t.match(user?.passwordHash, new RegExp(`^scrypt\\$${cost}\\$8\\$1\\$`));
      t.match(
        (await findApiKey(runtime.documents, 'editor-id'))?.credentialHash,
        new RegExp(`^scrypt\\$${cost}\\$8\\$1\\$`),
      );
      const login = await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email: 'editor@example.org', password: 'editor-pass' },
      });
      t.equal(login.statusCode, 204, login.body);
      const write = (query: string) =>
        app.inject({ method: 'POST', url: `/api/item_sets?${query}`, payload: { 'o:title': 'Set' } });
      t.equal((await write(keyFor('editor'))).statusCode, 201, 'the API key writes');
      t.equal((await write('key_identity=editor-id&key_credential=wrong')).statusCode, 403);
    },
  );
}
