import t from 'tap';
import { FixedWindows, secondsLeft } from '../../infra/fixed-windows.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');

t.test('a first hit starts a window; hits in it count up; it is forgotten when it ends', async (t) => {
  const windows = new FixedWindows(60_000);
  t.equal(windows.current('a', T0), null);
  t.same(windows.hit('a', T0), { count: 1, endsAt: T0 + 60_000 });
  t.same(windows.hit('a', T0 + 59_999), { count: 2, endsAt: T0 + 60_000 }, 'a later hit does not move the end');
  t.equal(windows.current('a', T0 + 60_000), null, 'ended');
  t.same(windows.hit('a', T0 + 60_000), { count: 1, endsAt: T0 + 120_000 }, 'a hit after it starts a new one');
  windows.forget('a');
  t.equal(windows.current('a', T0 + 60_000), null, 'forgotten');
  t.equal(secondsLeft({ count: 1, endsAt: T0 + 1_500 }, T0), 2);
  t.equal(secondsLeft({ count: 1, endsAt: T0 + 10 }, T0), 1, 'at least a second');
});

t.test('ended windows are dropped as new ones start; a key that starts again goes to the back', async (t) => {
  const windows = new FixedWindows(60_000, 2);
  windows.hit('a', T0);
  windows.hit('b', T0 + 30_000);
  windows.hit('a', T0 + 60_000);
  t.equal(windows.current('b', T0 + 60_000)?.count, 1, 'b still counts');
  windows.hit('c', T0 + 90_000);
  t.equal(windows.current('b', T0 + 90_000), null, 'b ended');
  t.equal(
    windows.current('a', T0 + 90_000)?.count,
    1,
    'a, behind b, is kept: at most 2 windows, and b was the one dropped',
  );
  t.equal(windows.current('c', T0 + 90_000)?.count, 1);
});

t.test('a flood of made-up keys within one window is capped, the oldest forgotten first', async (t) => {
  const windows = new FixedWindows(900_000);
  windows.hit('target', T0);
  for (let i = 1; i < 100_000; i++) windows.hit(`made-up-${i}`, T0);
  t.equal(windows.current('target', T0)?.count, 1, '100,000 windows: all kept');
  windows.hit('one-more', T0);
  t.equal(windows.current('target', T0), null, 'the next one pushes out the oldest');
  t.equal(windows.current('made-up-1', T0)?.count, 1, 'and only the oldest');
  t.equal(windows.current('one-more', T0)?.count, 1);
});
