import t from 'tap';
import { join } from 'node:path';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { defineProjection } from '../../projections/projection.js';
import { ProjectionRunner } from '../../projections/runner.js';

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };

function setup(t: { testdir(): string; teardown(fn: () => unknown): void }) {
  const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'));
  const documents = new MemoryDocumentStore();
  const errors: object[] = [];
  const logger = { error: (d: object) => errors.push(d), warn: () => {} };
  const counter = defineProjection({
    name: 'counter',
    handles: ['Counted'],
    async apply(event, docs) {
      const c = docs.collection<{ _id: string; n: number; seen: number[] }>('counts');
      const doc = (await c.findOne({ _id: 'x' })) ?? { _id: 'x', n: 0, seen: [] };
      await c.put({ _id: 'x', n: doc.n + 1, seen: [...doc.seen, event.position] });
    },
  });
  const broken = defineProjection({
    name: 'broken',
    handles: ['Counted'],
    async apply(event) {
      if ((event.data as { fail?: boolean }).fail) throw new Error('bad data');
    },
  });
  const runner = new ProjectionRunner([counter, broken], new EmbeddedEventBus(store), store, documents, logger);
  t.teardown(async () => {
    await runner.stop();
    await store.close();
  });
  return { store, documents, runner, errors };
}

t.test('applies events once even when a batch is delivered twice', async (t) => {
  const { store, documents, runner } = setup(t);
  await store.append('s-1', [{ type: 'Counted', data: {}, metadata: meta }, { type: 'Counted', data: {}, metadata: meta }], 0);
  const batch: StoredEvent[] = await store.readAll(0, 100);
  await runner.handle(batch);
  await runner.handle(batch);
  const doc = await documents.collection<{ _id: string; n: number }>('counts').findOne({ _id: 'x' });
  t.equal(doc?.n, 2, 'redelivery changes nothing');
  t.equal(runner.currentPosition, 2);
});

t.test('a failing handler is logged and skipped; the others and the checkpoint go on', async (t) => {
  const { store, documents, runner, errors } = setup(t);
  await runner.start();
  const { position } = await store.append(
    's-1',
    [
      { type: 'Counted', data: { fail: true }, metadata: meta },
      { type: 'Counted', data: {}, metadata: meta },
    ],
    0,
  );
  await runner.waitFor(position);
  const doc = await documents.collection<{ _id: string; n: number }>('counts').findOne({ _id: 'x' });
  t.equal(doc?.n, 2);
  t.equal(errors.length, 1, 'the failure was logged once');
  t.match(errors[0], { projection: 'broken', eventType: 'Counted', position: 1 });
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

t.test('waitFor refuses a position the projections do not reach in time, each waiter by its own deadline', async (t) => {
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
  t.ok((shortResult as { after: number }).after < 350, 'a shorter wait after a longer one is refused on its own deadline');
  const longResult = await long;
  t.match(longResult, { name: 'DependencyUnavailableError' });
  t.ok((longResult as { after: number }).after >= 390, 'the long wait lasts its whole timeout');
  // A waiter the projections do reach resolves, and no expired one is left to refuse later.
  await runner.start();
  const { position } = await store.append('s-1', [{ type: 'Counted', data: {}, metadata: meta }], 0);
  await t.resolves(runner.waitFor(position, 1_000));
});
