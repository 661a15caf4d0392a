import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../../../app/runtime.js';
import { usersImporter } from '../../../commands/users/importer.js';
import { findApiKey, findUserByEmail } from '../../../queries/users.js';
import { buildTestApp } from '../../helper.js';

/** A fixture object of a test has no file of its own: files it names are read from the working folder. */
const HERE = { dir: process.cwd() };

const USERS = 10;

const fixture = {
  users: Array.from({ length: USERS }, (_, i) => ({
    email: `user${i}@example.org`,
    name: `User ${i}`,
    role: 'editor',
    password: `pass-${i}`,
    api_keys: [{ identity: `key-${i}`, credential: `secret-${i}` }],
  })),
};

/**
 * A hasher that counts the hashes running at once, and finishes the later users' first (so an
 * import that wrote them as they came would put them out of order).
 */
function countingHasher(fail?: string) {
  const seen = { running: 0, most: 0 };
  const hash = async (secret: string): Promise<string> => {
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    try {
      await sleep(2 + USERS - Number(secret.split('-')[1]));
      if (secret === fail) throw new Error(`cannot hash ${secret}`);
      return `hashed:${secret}`;
    } finally {
      seen.running--;
    }
  };
  return { seen, hash };
}

function withHasher(
  runtime: Runtime,
  hash: (secret: string) => Promise<string>,
  secretHashCost = runtime.config.secretHashCost,
): Runtime {
  return {
    ...runtime,
    config: { ...runtime.config, secretHashCost },
    commandContext: (userId, requestId) => ({ ...runtime.commandContext(userId, requestId), hashSecret: hash }),
  };
}

t.test('users are hashed several at once, and written in the fixture order, each with its own hashes', async (t) => {
  const { runtime } = await buildTestApp(t);
  const hasher = countingHasher();
  let ticks = 0;
  await usersImporter.import(fixture, withHasher(runtime, hasher.hash), {
    progress: { tick: () => ticks++ },
    source: HERE,
  });
  await runtime.projections.catchUp();
  t.equal(ticks, USERS);
  t.ok(hasher.seen.most > 1 && hasher.seen.most <= 4, `hashes at once: ${hasher.seen.most}`);
  const ids: number[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = await findUserByEmail(runtime.documents, `user${i}@example.org`);
    t.equal(user?.passwordHash, `hashed:pass-${i}`, `user ${i}'s password`);
    t.equal((await findApiKey(runtime.documents, `key-${i}`))?.credentialHash, `hashed:secret-${i}`, `user ${i}'s key`);
    ids.push(user?._id ?? 0);
  }
  t.same(
    ids,
    [...ids].sort((a, b) => a - b),
    'ids taken in the fixture order',
  );
});

t.test('at a cost whose hash takes 64 MiB or more, one user is hashed at a time', async (t) => {
  const { runtime } = await buildTestApp(t);
  const hasher = countingHasher();
  await usersImporter.import(fixture, withHasher(runtime, hasher.hash, 2 ** 16), {
    progress: { tick() {} },
    source: HERE,
  });
  t.equal(hasher.seen.most, 1);
});

t.test('a hash that fails stops the import there: the users before it are written, none after', async (t) => {
  const { runtime } = await buildTestApp(t);
  const hasher = countingHasher('secret-3');
  await t.rejects(
    usersImporter.import(fixture, withHasher(runtime, hasher.hash), { progress: { tick() {} }, source: HERE }),
    {
      message: 'cannot hash secret-3',
    },
  );
  await runtime.projections.catchUp();
  for (let i = 0; i < USERS; i++) {
    const user = await findUserByEmail(runtime.documents, `user${i}@example.org`);
    t.equal(user !== null, i < 3, `user ${i} ${i < 3 ? 'written' : 'not written'}`);
  }
});
