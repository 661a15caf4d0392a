import t from 'tap';
import { DecodeSlots, DEFAULT_DECODE_SLOTS } from '../../../infra/images/decode-slots.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('at most max tasks run; the others start in arrival order as slots free', async (t) => {
  const slots = new DecodeSlots(2);
  const gates = Array.from({ length: 6 }, () => deferred<number>());
  const started: number[] = [];
  const results = gates.map((gate, i) =>
    slots.run(async () => {
      started.push(i);
      return gate.promise;
    }),
  );
  await tick();
  t.same(started, [0, 1]);
  t.equal(slots.active, 2);
  t.equal(slots.waiting, 4);
  gates[1].resolve(1);
  await tick();
  t.same(started, [0, 1, 2], 'the first waiter takes the freed slot');
  t.equal(slots.active, 2);
  t.equal(slots.waiting, 3);
  gates[0].resolve(0);
  gates[2].resolve(2);
  await tick();
  t.same(started, [0, 1, 2, 3, 4]);
  for (const i of [3, 4, 5]) {
    gates[i].resolve(i);
    await tick();
  }
  t.same(await Promise.all(results), [0, 1, 2, 3, 4, 5], 'each caller gets its own answer');
  t.same(started, [0, 1, 2, 3, 4, 5]);
  t.equal(slots.active, 0);
  t.equal(slots.waiting, 0);
});

t.test('a failing task frees its slot and its caller gets the error', async (t) => {
  const slots = new DecodeSlots(1);
  const failing = slots.run(async () => {
    throw new Error('corrupt image');
  });
  const throwing = slots.run((): Promise<never> => {
    throw new Error('thrown before a promise');
  });
  const next = slots.run(async () => 'rendered');
  t.equal(slots.waiting, 2);
  await t.rejects(failing, { message: 'corrupt image' });
  await t.rejects(throwing, { message: 'thrown before a promise' });
  t.equal(await next, 'rendered');
  t.equal(slots.active, 0);
  t.equal(slots.waiting, 0);
});

t.test('never more than max at once under a burst', async (t) => {
  const slots = new DecodeSlots(3);
  let running = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      slots.run(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        running -= 1;
      }),
    ),
  );
  t.equal(most, 3);
  t.equal(slots.active, 0);
});

t.test('sizes', async (t) => {
  t.ok(Number.isInteger(DEFAULT_DECODE_SLOTS) && DEFAULT_DECODE_SLOTS >= 2);
  for (const max of [0, -1, 1.5, NaN]) t.throws(() => new DecodeSlots(max), RangeError, String(max));
  t.equal(new DecodeSlots(4).max, 4);
});
