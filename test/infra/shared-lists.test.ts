import t from 'tap';
import { sharedList } from '../../infra/shared-lists.js';

t.test('equal short lists are one frozen copy', async (t) => {
  const first = sharedList<number>([1, 2]);
  const second = sharedList([1, 2]);
  t.equal(first, second);
  t.same(first, [1, 2]);
  t.ok(Object.isFrozen(first));
  t.throws(() => first.push(3), TypeError, 'a holder that tries to change it fails loudly');
});

t.test('the copy does not follow later changes to the list given', async (t) => {
  const given = ['history', 'maps'];
  const kept = sharedList(given);
  given.push('music');
  t.same(kept, ['history', 'maps']);
});

t.test('numbers and strings with the same text stay apart', async (t) => {
  t.not(sharedList([1]) as unknown, sharedList(['1']) as unknown);
  t.same(sharedList(['1']), ['1']);
});

t.test('empty lists share one; long lists are kept as given', async (t) => {
  t.equal(sharedList<number>([]), sharedList<string>([]) as unknown);
  const long = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  t.equal(sharedList(long), long);
});
