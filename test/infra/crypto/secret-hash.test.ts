import t from 'tap';
import { hashSecret, scryptHasher, SECRET_HASH_COST, verifySecret } from '../../../infra/crypto/secret-hash.js';

t.test('a secret hashes at the cost asked for, which the stored form records', async (t) => {
  const stored = await scryptHasher(1024)('correct horse');
  t.match(stored, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/);
  t.equal(await verifySecret('correct horse', stored), true);
  t.equal(await verifySecret('correct horsf', stored), false);
  t.not(await scryptHasher(1024)('correct horse'), stored, 'a new salt each time');
});

t.test('the default cost is 2^14', async (t) => {
  t.equal(SECRET_HASH_COST.default, 16384);
  t.match(await hashSecret('s', SECRET_HASH_COST.default), /^scrypt\$16384\$8\$1\$/);
});

t.test('a hash made at one cost verifies whatever the configured cost is now', async (t) => {
  // 2^17 needs more memory than scrypt allows by default: the stored form's own cost decides.
  const highest = await scryptHasher(SECRET_HASH_COST.max)('kept');
  t.match(highest, /^scrypt\$131072\$/);
  t.equal(await verifySecret('kept', highest), true);
  t.equal(await verifySecret('kept', await scryptHasher(SECRET_HASH_COST.min)('kept')), true);
});

t.test('a cost outside the powers of two from 2^10 to 2^17 is refused', async (t) => {
  for (const cost of [0, 512, 1000, 262144, 16384.5]) t.throws(() => scryptHasher(cost), RangeError, String(cost));
  await t.rejects(hashSecret('s', 3), RangeError);
});

t.test('a stored form of another scheme does not verify', async (t) => {
  t.equal(await verifySecret('s', 'bcrypt$10$x$y'), false);
  t.equal(await verifySecret('s', 'scrypt$1024$8$1$$'), false);
});

t.test('a stored form with parameters this code never writes is refused, not tried', async (t) => {
  const [, , , , salt, hash] = (await scryptHasher(1024)('s')).split('$');
  t.equal(await verifySecret('s', `scrypt$1024$8$1$${salt}$${hash}`), true, 'as written');
  for (const [n, r, p] of [
    ['1073741824', '8', '1'],
    ['1000', '8', '1'],
    ['1024', '4096', '1'],
    ['1024', '8', '64'],
  ]) {
    t.equal(await verifySecret('s', `scrypt$${n}$${r}$${p}$${salt}$${hash}`), false, `N=${n} r=${r} p=${p}`);
  }
});
