import t from 'tap';
import { inLanes } from '../../commands/in-lanes.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('every index runs once, at most `lanes` at a time', async (t) => {
  const done: number[] = [];
  let running = 0;
  let most = 0;
  await inLanes(20, 4, async (i) => {
    running++;
    most = Math.max(most, running);
    await tick();
    done.push(i);
    running--;
  });
  t.same(
    [...done].sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => i),
  );
  t.equal(most, 4);
  await inLanes(0, 4, async () => {
    t.fail('no work');
  });
});

t.test(
  'after a failure nothing new starts, the work under way finishes, then the first failure is thrown',
  async (t) => {
    const started: number[] = [];
    const finished: number[] = [];
    const failed = inLanes(100, 3, async (i) => {
      started.push(i);
      await tick();
      if (i === 1) throw new Error('one');
      if (i === 2) throw new Error('two');
      await tick();
      finished.push(i);
    });
    await t.rejects(failed, { message: 'one' });
    t.same(started, [0, 1, 2], 'no index started after the failures');
    t.same(finished, [0], 'the lane still working finished before the call settled');
  },
);
