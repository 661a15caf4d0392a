import { join } from 'node:path';
import t from 'tap';
import type { CommandContext } from '../../commands/command-context.js';
import { nextId, reserveId } from '../../commands/sequence.js';
import { FixedClock } from '../../infra/clock/port.js';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';

function context(t: { testdir(): string; teardown(fn: () => unknown): void }): CommandContext {
  const eventStore = new SqliteEventStore(join(t.testdir(), 'events.sqlite'));
  t.teardown(() => eventStore.close());
  return {
    eventStore,
    documents: new MemoryDocumentStore(),
    clock: new FixedClock(new Date('2026-01-02T03:04:05Z')),
    userId: 1,
    waitForProjections: async () => {},
  };
}

t.test('concurrent allocations get distinct, gapless ids, one event each', async (t) => {
  const ctx = context(t);
  const ids = await Promise.all(Array.from({ length: 50 }, () => nextId(ctx, 'thing')));
  t.same([...ids].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
  t.equal((await ctx.eventStore.readStream('sequence-thing')).length, 50, 'no retries left extra events');
});

t.test('sequences of different types do not wait for each other, and a reserve moves the next id on', async (t) => {
  const ctx = context(t);
  const [a, b] = await Promise.all([nextId(ctx, 'a'), nextId(ctx, 'b')]);
  t.same([a, b], [1, 1]);
  await reserveId(ctx, 'a', 10);
  t.equal(await nextId(ctx, 'a'), 11);
});

t.test('an allocation that fails does not block the ones after it', async (t) => {
  const ctx = context(t);
  const store = ctx.eventStore as SqliteEventStore;
  const readLastEvent = store.readLastEvent.bind(store);
  let failNext = true;
  // The same store object, so both allocations share one queue.
  store.readLastEvent = async (stream: string) => {
    if (failNext) {
      failNext = false;
      throw new Error('disk unavailable');
    }
    return readLastEvent(stream);
  };
  const [failed, next] = await Promise.allSettled([nextId(ctx, 'thing'), nextId(ctx, 'thing')]);
  t.equal(failed.status, 'rejected');
  t.same(next, { status: 'fulfilled', value: 1 });
});
