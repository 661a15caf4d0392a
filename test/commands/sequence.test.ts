import { join } from 'node:path';
import t from 'tap';
import { sqliteCommandContext } from './sqlite-context.js';
import type { CommandContext } from '../../commands/command-context.js';
import { nextId, reserveId } from '../../commands/sequence.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';

/** The ids each IdAllocated event of the stream took, in log order (`from` to `id`). */
async function takenIds(ctx: CommandContext, stream: string): Promise<number[][]> {
  return (await ctx.eventStore.readStream(stream)).map((e) => {
    const { id, from } = e.data as { id: number; from?: number };
    return Array.from({ length: id - (from ?? id) + 1 }, (_, i) => (from ?? id) + i);
  });
}

t.test('concurrent allocations get distinct, gapless ids in claim order, batched into few events', async (t) => {
  const ctx = sqliteCommandContext(t);
  const ids = await Promise.all(Array.from({ length: 50 }, () => nextId(ctx, 'thing')));
  t.same(ids, Array.from({ length: 50 }, (_, i) => i + 1), 'in the order they were claimed');
  const taken = await takenIds(ctx, 'sequence-thing');
  t.same(taken.flat(), ids, 'every id taken by exactly one event, in order');
  t.same(taken.map((range) => range.length), [1, 49], 'the first claim went alone; those made meanwhile shared one append');
});

t.test('an allocation that fails is not remembered: its claims are refused, the next batch reads the log again', async (t) => {
  const ctx = sqliteCommandContext(t);
  const store = ctx.eventStore as SqliteEventStore;
  t.equal(await nextId(ctx, 'thing'), 1);
  const append = store.append.bind(store);
  let failNext = true;
  store.append = async (...args: Parameters<SqliteEventStore['append']>) => {
    if (failNext) {
      failNext = false;
      throw new Error('disk full');
    }
    return append(...args);
  };
  const failed = await Promise.allSettled([nextId(ctx, 'thing'), nextId(ctx, 'thing')]);
  t.match(failed, [
    { status: 'rejected', reason: { message: 'disk full' } },
    { status: 'rejected', reason: { message: 'disk full' } },
  ], 'every claim of the failed batch is refused');
  t.equal(await nextId(ctx, 'thing'), 2, 'the next batch takes the ids the failed one did not');
  t.same((await takenIds(ctx, 'sequence-thing')).flat(), [1, 2]);
});

t.test('sequences of different types do not wait for each other, and a reserve moves the next id on', async (t) => {
  const ctx = sqliteCommandContext(t);
  const [a, b] = await Promise.all([nextId(ctx, 'a'), nextId(ctx, 'b')]);
  t.same([a, b], [1, 1]);
  await reserveId(ctx, 'a', 10);
  t.equal(await nextId(ctx, 'a'), 11);
});

t.test('a failed read of the sequence is not remembered: the next allocation reads again', async (t) => {
  const ctx = sqliteCommandContext(t);
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
  const here = sqliteCommandContext(t, file);
  const elsewhere = sqliteCommandContext(t, file);
  t.equal(await nextId(here, 'thing'), 1);
  t.equal(await nextId(elsewhere, 'thing'), 2, 'the other process reads the log');
  t.equal(await nextId(here, 'thing'), 3, 'this process knew 1, conflicted, read again');
  const both = await Promise.all([nextId(here, 'thing'), nextId(elsewhere, 'thing'), nextId(here, 'thing'), nextId(elsewhere, 'thing')]);
  t.same([...both].sort((a, b) => a - b), [4, 5, 6, 7]);
  t.same((await takenIds(here, 'sequence-thing')).flat(), [1, 2, 3, 4, 5, 6, 7], 'every id taken by exactly one event, in order');
});
