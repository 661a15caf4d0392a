import { join } from 'node:path';
import t from 'tap';
import type { CommandContext } from '../../commands/command-context.js';
import { nextId, reserveId } from '../../commands/sequence.js';
import { FixedClock } from '../../infra/clock/port.js';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';

function context(t: { testdir(): string; teardown(fn: () => unknown): void }, file = join(t.testdir(), 'events.sqlite')): CommandContext {
  const eventStore = new SqliteEventStore(file);
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

t.test('a failed read of the sequence is not remembered: the next allocation reads again', async (t) => {
  const ctx = context(t);
  const store = ctx.eventStore as SqliteEventStore;
  const readLastEvent = store.readLastEvent.bind(store);
  let failNext = true;
  store.readLastEvent = async (stream: string) => {
    if (failNext) {
      failNext = false;
      throw new Error('disk unavailable');
    }
    return readLastEvent(stream);
  };
  await t.rejects(nextId(ctx, 'thing'), /disk unavailable/);
  t.equal(await nextId(ctx, 'thing'), 1);
  t.equal(await nextId(ctx, 'thing'), 2);
});

t.test('another process allocating from the same log: the conflict makes this one read again, ids stay distinct', async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const here = context(t, file);
  const elsewhere = context(t, file);
  t.equal(await nextId(here, 'thing'), 1);
  t.equal(await nextId(elsewhere, 'thing'), 2, 'the other process reads the log');
  t.equal(await nextId(here, 'thing'), 3, 'this process knew 1, conflicted, read again');
  const both = await Promise.all([nextId(here, 'thing'), nextId(elsewhere, 'thing'), nextId(here, 'thing'), nextId(elsewhere, 'thing')]);
  t.same([...both].sort((a, b) => a - b), [4, 5, 6, 7]);
  t.same(
    (await here.eventStore.readStream('sequence-thing')).map((e) => (e.data as { id: number }).id),
    [1, 2, 3, 4, 5, 6, 7],
    'one event per id, in order',
  );
});
