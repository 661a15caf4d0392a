import { join } from 'node:path';
import t from 'tap';
import { sqliteCommandContext } from './sqlite-context.js';
import type { CommandContext } from '../../commands/command-context.js';
import { idsInOrder, idFor, nextId, RESERVE, releaseReservedIds, reserveId } from '../../commands/sequence.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';

const meta = { userId: null, at: '2026-01-02T03:04:05.000Z' };

/** The sequence's events in log order, as [type, from, id]. */
async function sequenceEvents(ctx: CommandContext, stream: string): Promise<[string, number | undefined, number][]> {
  return (await ctx.eventStore.readStream(stream)).map((e) => {
    const { id, from } = e.data as { id: number; from?: number };
    return [e.type, from, id];
  });
}

t.test('concurrent allocations get distinct, gapless ids in claim order, with a reserve recorded ahead', async (t) => {
  const ctx = sqliteCommandContext(t);
  const ids = await Promise.all(Array.from({ length: 50 }, () => nextId(ctx, 'thing')));
  t.same(
    ids,
    Array.from({ length: 50 }, (_, i) => i + 1),
    'in the order they were claimed',
  );
  t.same(
    await sequenceEvents(ctx, 'sequence-thing'),
    [
      ['IdAllocated', 1, 1],
      ['IdAllocated', 2, 50 + RESERVE],
    ],
    'the first claim went alone; those made meanwhile shared one append, with a reserve after them',
  );
});

/** Three concurrent claims: the first goes alone, the other two queue behind it and take a reserve. */
const burst = (ctx: CommandContext) => Promise.all([nextId(ctx, 'thing'), nextId(ctx, 'thing'), nextId(ctx, 'thing')]);

t.test('claims made one at a time take no reserve: every id is recorded as it is taken', async (t) => {
  const ctx = sqliteCommandContext(t);
  for (let id = 1; id <= 3; id++) t.equal(await nextId(ctx, 'thing'), id);
  t.same(await sequenceEvents(ctx, 'sequence-thing'), [
    ['IdAllocated', 1, 1],
    ['IdAllocated', 2, 2],
    ['IdAllocated', 3, 3],
  ]);
});

t.test('an id within the reserve needs no append; past it, claims record again', async (t) => {
  const ctx = sqliteCommandContext(t);
  t.same(await burst(ctx), [1, 2, 3]);
  for (let id = 4; id <= 3 + RESERVE; id++) t.equal(await nextId(ctx, 'thing'), id);
  t.equal((await sequenceEvents(ctx, 'sequence-thing')).length, 2, 'the reserve served them all');
  t.equal(await nextId(ctx, 'thing'), 4 + RESERVE);
  t.same(
    (await sequenceEvents(ctx, 'sequence-thing')).at(-1),
    ['IdAllocated', 4 + RESERVE, 4 + RESERVE],
    'one at a time again: no reserve',
  );
});

t.test('a closing process gives back its unused reserve: the next one goes on from the last id taken', async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const first = sqliteCommandContext(t, file);
  t.same(await burst(first), [1, 2, 3]);
  await releaseReservedIds(first.eventStore, meta);
  await first.eventStore.close();
  const next = sqliteCommandContext(t, file);
  t.equal(await nextId(next, 'thing'), 4, 'no gap');
  t.same(
    (await sequenceEvents(next, 'sequence-thing')).map(([type]) => type),
    ['IdAllocated', 'IdAllocated', 'IdsReleased', 'IdAllocated'],
  );
});

t.test('a process that stops without giving back (a crash) leaves a gap, never a repeated id', async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const crashed = sqliteCommandContext(t, file);
  t.same(await burst(crashed), [1, 2, 3]);
  const next = sqliteCommandContext(t, file);
  t.equal(await nextId(next, 'thing'), 4 + RESERVE, 'after the reserve the log holds as taken');
});

t.test("a reserve is not given back over another process's append: those ids stay unused", async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const here = sqliteCommandContext(t, file);
  const elsewhere = sqliteCommandContext(t, file);
  t.same(await burst(here), [1, 2, 3]);
  t.equal(await nextId(elsewhere, 'thing'), 4 + RESERVE, "the other process starts after this one's reserve");
  await releaseReservedIds(here.eventStore, meta);
  const types = (await sequenceEvents(here, 'sequence-thing')).map(([type]) => type);
  t.same(types, ['IdAllocated', 'IdAllocated', 'IdAllocated'], 'nothing given back');
  const third = sqliteCommandContext(t, file);
  t.equal(await nextId(third, 'thing'), 5 + RESERVE);
});

t.test(
  'an allocation that fails is not remembered: its claim is refused, the next batch reads the log again',
  async (t) => {
    const ctx = sqliteCommandContext(t);
    const store = ctx.eventStore as SqliteEventStore;
    const append = store.append.bind(store);
    let failNext = true;
    store.append = async (...args: Parameters<SqliteEventStore['append']>) => {
      if (failNext) {
        failNext = false;
        throw new Error('disk full');
      }
      return append(...args);
    };
    // The first claim goes alone; the second waits for the next batch.
    const [failed, next] = await Promise.allSettled([nextId(ctx, 'thing'), nextId(ctx, 'thing')]);
    t.match(
      failed,
      { status: 'rejected', reason: { message: 'disk full' } },
      'the claim of the failed batch is refused',
    );
    t.same(next, { status: 'fulfilled', value: 1 }, 'the next batch takes the id the failed one did not');
    t.same(await sequenceEvents(ctx, 'sequence-thing'), [['IdAllocated', 1, 1]]);
  },
);

t.test(
  'sequences of different types do not wait for each other; a given id moves the next id on, recording only itself',
  async (t) => {
    const ctx = sqliteCommandContext(t);
    const [a, b] = await Promise.all([nextId(ctx, 'a'), nextId(ctx, 'b')]);
    t.same([a, b], [1, 1]);
    await reserveId(ctx, 'a', 10);
    t.equal(await nextId(ctx, 'a'), 11);
    t.same(await Promise.all([reserveId(ctx, 'a', 100), reserveId(ctx, 'a', 101)]), [undefined, undefined]);
    t.same(
      (await sequenceEvents(ctx, 'sequence-a')).at(-1),
      ['IdAllocated', 12, 101],
      'no reserve after given ids, even queued together',
    );
    t.equal(await nextId(ctx, 'a'), 102);
  },
);

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

t.test(
  'another process allocating from the same log: the conflict makes this one read again, ids stay distinct',
  async (t) => {
    const file = join(t.testdir(), 'events.sqlite');
    const here = sqliteCommandContext(t, file);
    const elsewhere = sqliteCommandContext(t, file);
    const taken: number[] = [];
    // Each takes from its own reserve; past it, the append conflicts with the other's and is retried from the log.
    for (let round = 0; round < 3 * RESERVE; round++) {
      taken.push(...(await Promise.all([nextId(here, 'thing'), nextId(elsewhere, 'thing'), nextId(here, 'thing')])));
    }
    t.equal(new Set(taken).size, taken.length, 'no id given twice');
    const ranges = (await sequenceEvents(here, 'sequence-thing')).map(([, from, id]) => [from ?? id, id]);
    for (let i = 1; i < ranges.length; i++)
      t.equal(ranges[i][0], ranges[i - 1][1] + 1, 'each event records the ids after the one before');
    for (const id of taken)
      t.ok(
        ranges.some(([from, to]) => id >= from && id <= to),
        `id ${id} is recorded`,
      );
  },
);

t.test(
  'idsInOrder gives the ids creates one after another would take, in one append, and later creates given them append nothing',
  async (t) => {
    const given = [undefined, 10, undefined, 5, undefined, 3];
    const oneByOne = sqliteCommandContext(t);
    await nextId(oneByOne, 'thing');
    const expected: number[] = [];
    for (const id of given) expected.push(await idFor(oneByOne, 'thing', id));
    t.same(expected, [2, 10, 11, 5, 12, 3], 'one by one: a missing id is the next after the highest so far');

    const ctx = sqliteCommandContext(t);
    await nextId(ctx, 'thing');
    t.same(await idsInOrder(ctx, 'thing', given), expected, 'the same ids');
    t.same((await sequenceEvents(ctx, 'sequence-thing')).at(-1), ['IdAllocated', 2, 12], 'recorded by one event');
    const events = (await sequenceEvents(ctx, 'sequence-thing')).length;
    for (const id of expected) t.equal(await idFor(ctx, 'thing', id), id);
    t.equal((await sequenceEvents(ctx, 'sequence-thing')).length, events, 'creates given those ids append nothing');
    t.equal(await nextId(ctx, 'thing'), 13, 'the next id comes after them');
    t.same(await idsInOrder(ctx, 'thing', [4, 13]), [4, 13], 'given ids already passed take nothing');
    t.equal((await sequenceEvents(ctx, 'sequence-thing')).length, events + 1, "only the next id's own append");
    t.same(await idsInOrder(ctx, 'thing', []), [], 'an empty list');
  },
);

t.test('idsInOrder works the ids out again from the log when another process appended meanwhile', async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const ours = sqliteCommandContext(t, file);
  t.equal(await nextId(ours, 'thing'), 1);
  const theirs = sqliteCommandContext(t, file);
  t.same(await Promise.all([nextId(theirs, 'thing'), nextId(theirs, 'thing')]), [2, 3]);
  t.same(
    await idsInOrder(ours, 'thing', [undefined, undefined]),
    [4, 5],
    "after the other process's ids (it believed 1 was the last), not over them",
  );
});
