import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { MemoryFailedLogins } from '../../../infra/failed-logins/memory.js';

t.test('a flood of made-up keys within one window is capped at 100,000 windows, the oldest forgotten first', async (t) => {
  const counter = new MemoryFailedLogins(900, new FixedClock(new Date('2026-03-01T10:00:00Z')));
  t.teardown(() => counter.close());
  await counter.record('target');
  for (let i = 1; i < 100_000; i++) await counter.record(`made-up-${i}`);
  t.equal((await counter.count('target')).failures, 1, '100,000 windows: all kept');
  await counter.record('one-more');
  t.equal((await counter.count('target')).failures, 0, 'the next one pushes out the oldest');
  t.equal((await counter.count('made-up-1')).failures, 1, 'and only the oldest');
  t.equal((await counter.count('one-more')).failures, 1);
});
