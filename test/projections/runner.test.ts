import t from 'tap';
import { join } from 'node:path';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { defineHandlerProjection } from '../../projections/projection.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { PROJECTIONS_CONTROL_STREAM, retryRequested, skipRequested } from '../../projections/control-events.js';
import { DependencyUnavailableError } from '../../infra/errors.js';

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };

function setup(t: { testdir(): string; teardown(fn: () => unknown): void }) {
  const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'));
  const documents = new MemoryDocumentStore();
  const errors: object[] = [];
  const logger = { error: (d: object) => errors.push(d), warn: () => {} };
  const counter = defineHandlerProjection({
    name: 'counter',
    handles: ['Counted'],
    async handle(event, docs) {
      const c = docs.collection<{ _id: string; n: number; seen: number[] }>('counts');
      const doc = (await c.findOne({ _id: 'x' })) ?? { _id: 'x', n: 0, seen: [] };
      await c.put({ _id: 'x', n: doc.n + 1, seen: [...doc.seen, event.position] });
    },
  });
  // Fails on events marked `fail` until the test "fixes" it; records what it applied.
  const fault = { fixed: false, unavailableOnce: false };
  const broken = defineHandlerProjection({
    name: 'broken',
    handles: ['Counted'],
    async handle(event, docs) {
      if (fault.unavailableOnce) {
        fault.unavailableOnce = false;
        throw new DependencyUnavailableError('test store');
      }
      if ((event.data as { fail?: boolean }).fail && !fault.fixed) throw new Error('bad data');
      const c = docs.collection<{ _id: string; seen: number[] }>('broken-seen');
      const doc = (await c.findOne({ _id: 'x' })) ?? { _id: 'x', seen: [] };
      if (!doc.seen.includes(event.position)) await c.put({ _id: 'x', seen: [...doc.seen, event.position] });
    },
  });
  const runner = new ProjectionRunner([counter, broken], new EmbeddedEventBus(store), store, documents, logger);
  t.teardown(async () => {
    await runner.stop();
    await store.close();
  });
  return { store, documents, runner, errors, fault };
}

t.test('applies events once even when a batch is delivered twice', async (t) => {
  const { store, documents, runner } = setup(t);
  await store.append(
    's-1',
    [
      { type: 'Counted', data: {}, metadata: meta },
      { type: 'Counted', data: {}, metadata: meta },
    ],
    0,
  );
  const batch: StoredEvent[] = await store.readAll(0, 100);
  await runner.handle(batch);
  await runner.handle(batch);
  const doc = await documents.collection<{ _id: string; n: number }>('counts').findOne({ _id: 'x' });
  t.equal(doc?.n, 2, 'redelivery changes nothing');
  t.equal(runner.currentPosition, 2);
});

async function seenBy(documents: MemoryDocumentStore, collection: string): Promise<number[]> {
  return (await documents.collection<{ _id: string; seen: number[] }>(collection).findOne({ _id: 'x' }))?.seen ?? [];
}

const counted = (data: object = {}) => ({ type: 'Counted', data, metadata: meta });

t.test('a failing handler parks its projection at that event; the others go on; waits still answer', async (t) => {
  const { store, documents, runner, errors } = setup(t);
  await runner.start();
  await store.append('s-1', [counted(), counted({ fail: true }), counted()], 0);
  const { position } = await store.append('s-2', [counted()], 0);
  await t.resolves(runner.waitFor(position, 2_000), 'a read-your-writes wait is not held by a parked projection');
  t.same(await seenBy(documents, 'counts'), [1, 2, 3, 4], 'the other projection applied every event');
  t.same(await seenBy(documents, 'broken-seen'), [1], 'the parked one applied nothing after the failed event');
  t.equal(errors.length, 1, 'the failure was logged once');
  t.match(errors[0], { projection: 'broken', eventType: 'Counted', position: 2 });
  const broken = runner.status().find((s) => s.name === 'broken');
  t.match(broken, { position: 1, parked: { name: 'broken', position: 2, eventType: 'Counted', error: 'bad data' } });
  t.match(
    runner.status().find((s) => s.name === 'counter'),
    { position: 4, parked: null },
  );
});

t.test('a skip that names the parked event resumes the projection past that event only', async (t) => {
  const { store, documents, runner } = setup(t);
  await runner.start();
  await store.append('s-1', [counted(), counted({ fail: true }), counted()], 0);
  const { position: before } = await store.append('s-2', [counted()], 0);
  await runner.waitFor(before);
  const wrong = await store.append(PROJECTIONS_CONTROL_STREAM, [skipRequested('broken', 3, meta)], 'any');
  await runner.waitFor(wrong.position);
  t.match(
    runner.status().find((s) => s.name === 'broken'),
    { parked: { position: 2 } },
    'a skip of another event leaves it parked',
  );
  const skip = await store.append(PROJECTIONS_CONTROL_STREAM, [skipRequested('broken', 2, meta)], 'any');
  await runner.waitFor(skip.position);
  t.same(await seenBy(documents, 'broken-seen'), [1, 3, 4], 'every event but the skipped one is applied');
  const { position } = await store.append('s-3', [counted()], 0);
  await runner.waitFor(position);
  t.same(await seenBy(documents, 'broken-seen'), [1, 3, 4, 7], 'and it keeps applying new ones');
  t.match(
    runner.status().find((s) => s.name === 'broken'),
    { position: 7, parked: null },
  );
});

t.test('a retry after the fault is fixed applies the failed event; a retry before parks it again', async (t) => {
  const { store, documents, runner, errors, fault } = setup(t);
  await runner.start();
  const { position } = await store.append('s-1', [counted(), counted({ fail: true }), counted()], 0);
  await runner.waitFor(position);
  const early = await store.append(PROJECTIONS_CONTROL_STREAM, [retryRequested('broken', meta)], 'any');
  await runner.waitFor(early.position);
  t.match(
    runner.status().find((s) => s.name === 'broken'),
    { position: 1, parked: { position: 2 } },
    'still broken: parked again',
  );
  t.equal(errors.length, 2);
  fault.fixed = true;
  const retry = await store.append(PROJECTIONS_CONTROL_STREAM, [retryRequested('broken', meta)], 'any');
  await runner.waitFor(retry.position);
  t.same(await seenBy(documents, 'broken-seen'), [1, 2, 3]);
  t.match(
    runner.status().find((s) => s.name === 'broken'),
    { position: 5, parked: null },
  );
});

t.test(
  'a replay knows the skips recorded in the log: the skipped event is passed over if it still fails',
  async (t) => {
    const { store, documents, runner } = setup(t);
    await runner.start();
    await store.append('s-1', [counted(), counted({ fail: true }), counted()], 0);
    const skip = await store.append(PROJECTIONS_CONTROL_STREAM, [skipRequested('broken', 2, meta)], 'any');
    await runner.waitFor(skip.position);
    await runner.stop();
    await runner.reset();
    await runner.start();
    await runner.catchUp();
    t.same(await seenBy(documents, 'broken-seen'), [1, 3]);
    t.match(
      runner.status().find((s) => s.name === 'broken'),
      { parked: null },
    );
  },
);

t.test('an unavailable dependency parks nothing: the batch is refused, to be delivered again', async (t) => {
  const { store, runner, fault } = setup(t);
  await store.append('s-1', [counted()], 0);
  fault.unavailableOnce = true;
  await t.rejects(runner.handle(await store.readAll(0, 100)), DependencyUnavailableError);
  t.match(
    runner.status().find((s) => s.name === 'broken'),
    { position: 0, parked: null },
  );
  await runner.handle(await store.readAll(0, 100));
  t.match(
    runner.status().find((s) => s.name === 'broken'),
    { position: 1, parked: null },
  );
});

t.test('read-your-writes: waitFor resolves after the projections pass the position', async (t) => {
  const { store, documents, runner } = setup(t);
  await runner.start();
  for (let i = 1; i <= 20; i++) {
    const { position } = await store.append(`s-${i}`, [{ type: 'Counted', data: {}, metadata: meta }], 0);
    await runner.waitFor(position);
    const doc = await documents.collection<{ _id: string; n: number }>('counts').findOne({ _id: 'x' });
    t.equal(doc?.n, i);
  }
});

t.test('reset drops read models; a replay rebuilds them the same', async (t) => {
  const { store, documents, runner } = setup(t);
  await runner.start();
  const { position } = await store.append('s-1', [{ type: 'Counted', data: {}, metadata: meta }], 0);
  await runner.waitFor(position);
  await runner.stop();
  await runner.reset();
  t.equal(await documents.collection('counts').count(), 0);
  await runner.handle(await store.readAll(0, 100));
  t.equal((await documents.collection<{ _id: string; n: number }>('counts').findOne({ _id: 'x' }))?.n, 1);
});

t.test(
  'waitFor refuses a position the projections do not reach in time, each waiter by its own deadline',
  async (t) => {
    const { store, runner } = setup(t);
    // Not started: nothing moves the projections, so only the deadlines end the waits.
    const began = Date.now();
    const long = runner.waitFor(5, 400).then(
      () => 'resolved',
      (error: Error) => ({ name: error.constructor.name, after: Date.now() - began }),
    );
    const short = runner.waitFor(5, 50).then(
      () => 'resolved',
      (error: Error) => ({ name: error.constructor.name, after: Date.now() - began }),
    );
    const shortResult = await short;
    t.match(shortResult, { name: 'DependencyUnavailableError' }, 'the short wait is refused');
    t.ok(
      (shortResult as { after: number }).after < 350,
      'a shorter wait after a longer one is refused on its own deadline',
    );
    const longResult = await long;
    t.match(longResult, { name: 'DependencyUnavailableError' });
    t.ok((longResult as { after: number }).after >= 390, 'the long wait lasts its whole timeout');
    // A waiter the projections do reach resolves, and no expired one is left to refuse later.
    await runner.start();
    const { position } = await store.append('s-1', [{ type: 'Counted', data: {}, metadata: meta }], 0);
    await t.resolves(runner.waitFor(position, 1_000));
  },
);

t.test(
  'reset keeps a projection kept by a rebuild: its collection and its checkpoint, saved again; the replay passes it by',
  async (t) => {
    const dir = t.testdir();
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const documents = new SqliteDocumentStore(join(dir, 'read-models.sqlite'), { commitIntervalMs: 1 });
    const logger = { error: () => {}, warn: () => {} };
    const folded = defineHandlerProjection({
      name: 'folded',
      handles: ['Counted'],
      async handle(event, docs) {
        await docs.collection('folded').put({ _id: event.position });
      },
    });
    const outbox = defineHandlerProjection({
      name: 'outbox',
      handles: ['Counted'],
      keptByRebuild: ['marks'],
      async handle(event, docs) {
        await docs.collection('marks').put({ _id: event.position });
      },
    });
    const runner = new ProjectionRunner([folded, outbox], new EmbeddedEventBus(store), store, documents, logger);
    t.teardown(async () => {
      await runner.stop();
      await documents.close();
      await store.close();
    });
    await runner.start();
    const { position } = await store.append('s-1', [counted(), counted(), counted()], 0);
    await runner.waitFor(position);
    await documents.collection('marks').deleteOne({ _id: 2 });
    await runner.stop();

    await runner.reset();
    t.equal(await documents.collection('folded').count(), 0, 'the other read models are dropped');
    t.same(
      await documents.collection('marks').find({}, { sort: { _id: 1 } }),
      [{ _id: 1 }, { _id: 3 }],
      'the kept collection is as it was',
    );
    t.same(
      await documents.collection('_checkpoints').find({}),
      [{ _id: 'outbox', position: 3 }],
      'its checkpoint is saved again at once (a rebuild that applies nothing keeps it too)',
    );
    t.match(runner.status(), [
      { name: 'folded', position: 0 },
      { name: 'outbox', position: 3 },
    ]);
    await runner.handle(await store.readAll(0, 100));
    t.equal(await documents.collection('folded').count(), 3, 'the replay rebuilds the others');
    t.same(
      await documents.collection('marks').find({}, { sort: { _id: 1 } }),
      [{ _id: 1 }, { _id: 3 }],
      'and applies nothing to the kept one again',
    );
  },
);

t.test(
  'a batch saves the checkpoints of the projections that applied its events and the floor under all; a start resumes each from the higher',
  async (t) => {
    const dir = t.testdir();
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const documents = new SqliteDocumentStore(join(dir, 'read-models.sqlite'), { commitIntervalMs: 1 });
    t.teardown(async () => {
      await documents.close();
      await store.close();
    });
    const logger = { error: () => {}, warn: () => {} };
    const failing = { on: true };
    const projectionOf = (type: string) =>
      defineHandlerProjection({
        name: `of-${type}`,
        handles: [type],
        async handle(event, docs) {
          if (type === 'F' && failing.on) throw new Error('not yet');
          await docs.collection(`seen-${type}`).put({ _id: event.position });
        },
      });
    const runnerOn = (types: string[]) =>
      new ProjectionRunner(types.map(projectionOf), new EmbeddedEventBus(store), store, documents, logger);
    const saved = async () =>
      Object.fromEntries(
        (await documents.collection<{ _id: string; position: number }>('_checkpoints').find({})).map((c) => [
          c._id,
          c.position,
        ]),
      );
    const event = (type: string) => ({ type, data: {}, metadata: meta });

    await store.append('c-1', [event('C')], 0);
    // Driven batch by batch, never started: its end saves nothing more, as after a crash.
    const first = runnerOn(['A', 'B']);
    const fold = async (events: ReturnType<typeof event>[], expected: number) => {
      const before = await store.lastPosition();
      await store.append('s-1', events, expected);
      await first.handle(await store.readAll(before, 100));
    };
    await fold([event('A'), event('B')], 0);
    t.same(await saved(), { 'of-A': 3, 'of-B': 3, '*': 3 }, 'both applied an event of the batch');
    await fold([event('A')], 2);
    t.same(
      await saved(),
      { 'of-A': 4, 'of-B': 3, '*': 4 },
      'only the projection that applied the batch saves its own checkpoint; the floor moves',
    );
    await fold([event('D')], 3);
    t.same(await saved(), { 'of-A': 4, 'of-B': 3, '*': 5 }, 'a batch no projection applies saves the floor alone');

    const second = runnerOn(['A', 'B', 'C']);
    await second.start();
    await second.catchUp();
    t.match(
      second.startStats(),
      [
        { name: 'of-A', resumedFrom: 5, applied: 0 },
        { name: 'of-B', resumedFrom: 5, applied: 0 },
        { name: 'of-C', resumedFrom: 0, applied: 1, firstApplied: 1 },
      ],
      'the floor stands for the projections it names; one added since replays from its own checkpoint',
    );
    t.equal(await documents.collection('seen-A').count(), 2, 'every A event applied once');
    await second.stop();
    t.same(await saved(), { 'of-A': 5, 'of-B': 5, 'of-C': 5, '*': 5 }, 'a stop saves every checkpoint');

    const third = runnerOn(['A', 'B', 'C', 'F']);
    await third.start();
    await third.waitFor((await store.append('f-1', [event('F')], 0)).position);
    await third.waitFor((await store.append('s-1', [event('A')], 4)).position);
    t.match(third.status(), [
      { name: 'of-A', position: 7 },
      { name: 'of-B', position: 7 },
      { name: 'of-C', position: 7 },
      { name: 'of-F', position: 5, parked: { position: 6 } },
    ]);
    t.equal((await saved())['*'], 5, 'a parked projection holds the floor under the event it failed on');
    await third.stop();
    failing.on = false;
    const fourth = runnerOn(['A', 'B', 'C', 'F']);
    await fourth.start();
    await fourth.catchUp();
    t.match(
      fourth.startStats(),
      [
        { name: 'of-A', resumedFrom: 7, applied: 0 },
        { name: 'of-B', applied: 0 },
        { name: 'of-C', applied: 0 },
        { name: 'of-F', resumedFrom: 5, applied: 1, firstApplied: 6 },
      ],
      'the failed event is tried again at start, nothing else applied twice',
    );
    await fourth.stop();
  },
);
