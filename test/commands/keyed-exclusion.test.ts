import t from 'tap';
import { KeyedExclusion } from '../../commands/keyed-exclusion.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('tasks with one key run one at a time, in the order asked; other keys run alongside', async (t) => {
  const exclusion = new KeyedExclusion();
  const log: string[] = [];
  const task = (name: string) => async () => {
    log.push(`${name} starts`);
    await tick();
    await tick();
    log.push(`${name} ends`);
    return name;
  };
  const results = await Promise.all([exclusion.run('a', task('a1')), exclusion.run('a', task('a2')), exclusion.run('b', task('b1'))]);
  t.same(results, ['a1', 'a2', 'b1']);
  const at = (entry: string) => log.indexOf(entry);
  t.ok(at('a2 starts') > at('a1 ends'), 'the second task of a key starts after the first ends');
  t.ok(at('b1 starts') < at('a1 ends'), 'a task of another key does not wait');
  t.equal(exclusion.size, 0, 'no key is kept once its tasks are done');
});

t.test('a failed task hands its key on; its caller gets the error', async (t) => {
  const exclusion = new KeyedExclusion();
  const failed = exclusion.run('a', async () => {
    throw new Error('refused');
  });
  const next = exclusion.run('a', async () => 'next ran');
  await t.rejects(failed, /refused/);
  t.equal(await next, 'next ran');
  await tick();
  t.equal(exclusion.size, 0);
});
