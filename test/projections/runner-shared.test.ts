import t from 'tap';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import type { Collection, Document, DocumentStore } from '../../infra/document-store/port.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import type { EventBus, SubscribeOptions } from '../../infra/event-bus/port.js';
import type { AllEventsHandler, Subscription } from '../../infra/event-store/port.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { defineHandlerProjection } from '../../projections/projection.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { SHARED_POLL_MS } from '../../projections/runner/waits.js';

/*
 * Runners of two servers sharing their read models on a bus whose groups share their events
 * (a Kafka consumer group with one partition): one folds, the other's writes wait on the
 * position saved with the read models.
 */

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };
const counted = () => ({ type: 'Counted', data: {}, metadata: meta });
const quiet = { error: () => {}, warn: () => {} };

/** Counts every application, to show each event is applied once across the runners. */
const counter = defineHandlerProjection({
  name: 'counter',
  handles: ['Counted'],
  async handle(event, docs) {
    const c = docs.collection<{ _id: string; seen: number[] }>('counts');
    const doc = (await c.findOne({ _id: 'x' })) ?? { _id: 'x', seen: [] };
    await c.put({ _id: 'x', seen: [...doc.seen, event.position] });
  },
});

/** A group member of a shared group: the test hands it the partition (the events) or not. */
class GroupMember implements EventBus {
  readonly sharedGroups = true;
  handler: AllEventsHandler | null = null;
  options: SubscribeOptions = {};
  async subscribe(
    _group: string,
    _after: number,
    handler: AllEventsHandler,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    this.handler = handler;
    this.options = options;
    return { stop: async () => {} };
  }
  async close(): Promise<void> {}
}

/** Counts the reads of the checkpoints' collection. */
function counting(store: DocumentStore): { store: DocumentStore; reads: () => number } {
  let reads = 0;
  const wrapped: DocumentStore = Object.create(store) as DocumentStore;
  wrapped.collection = <T extends Document>(
    name: string,
    options?: Parameters<DocumentStore['collection']>[1],
  ): Collection<T> => {
    const collection = store.collection<T>(name, options);
    if (name !== '_checkpoints') return collection;
    const counted: Collection<T> = Object.create(collection) as Collection<T>;
    counted.findOne = (filter) => {
      reads++;
      return collection.findOne(filter);
    };
    return counted;
  };
  return { store: wrapped, reads: () => reads };
}

function setup(t: { testdir(): string; teardown(fn: () => unknown): void }) {
  const dir = t.testdir();
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  const documents = new SqliteDocumentStore(join(dir, 'documents.sqlite'));
  t.teardown(async () => {
    await store.close();
    await documents.close();
  });
  return { store, documents };
}

t.test("a write on the server whose runner does not fold is answered once the other's has folded it", async (t) => {
  const { store, documents } = setup(t);
  const busOne = new GroupMember();
  const busTwo = new GroupMember();
  const one = new ProjectionRunner([counter], busOne, store, documents, quiet);
  const two = new ProjectionRunner([counter], busTwo, store, documents, quiet);
  await one.start();
  await two.start();
  t.teardown(async () => {
    await one.stop();
    await two.stop();
  });
  const { position } = await store.append('s-1', [counted(), counted()], 0);
  const waited = two.waitFor(position, 5_000);
  // One holds the partition: it is given the events.
  await busOne.options.assigned?.();
  await busOne.handler?.(await store.readAll(0, 100));
  await t.resolves(waited, 'the wait on the other server ends');
  t.equal(two.currentPosition, 0, 'though its own runner folded nothing');

  // One dies; two is given the partition, from the group's committed offset: a batch the dead one
  // folded comes again, and the events after it.
  const next = await store.append('s-1', [counted()], 2);
  await busTwo.options.assigned?.();
  await busTwo.handler?.(await store.readAll(0, 100));
  await t.resolves(two.waitFor(next.position, 1_000));
  const seen = (await documents.collection<{ _id: string; seen: number[] }>('counts').findOne({ _id: 'x' }))?.seen;
  t.same(seen, [1, 2, 3], 'each event applied once across the two');
});

t.test('a runner on a bus that gives it every event reads no shared position while a write waits', async (t) => {
  const { store, documents } = setup(t);
  const { store: watched, reads } = counting(documents);
  // Slow enough that a write waits longer than a shared read's interval (runner/waits.ts).
  const slow = defineHandlerProjection({
    name: 'slow',
    handles: ['Counted'],
    handle: async () => new Promise<void>((r) => setTimeout(r, 3 * SHARED_POLL_MS)),
  });
  const runner = new ProjectionRunner([slow], new EmbeddedEventBus(store), store, watched, quiet);
  await runner.start();
  t.teardown(() => runner.stop());
  const before = reads();
  for (let i = 0; i < 3; i++) {
    const { position } = await store.append(`s-${i}`, [counted()], 0);
    await runner.waitFor(position, 2_000);
  }
  t.equal(reads() - before, 0, 'no read of the checkpoints');
});
