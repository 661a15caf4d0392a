import t, { type Test } from 'tap';
import { EventStoreDbEventStore } from '../../../infra/event-store/eventstoredb.js';
import type { NewEvent, StoredEvent } from '../../../infra/event-store/port.js';
import { startEsdbDouble, type EsdbDouble, type EsdbDoubleOptions } from './esdb-grpc-double.js';

// What the contract suite does not reach on EventStoreDB: positions that are byte offsets, and a
// log the server writes into too. Against the gRPC double (esdb-grpc-double.ts), not a server.

function event(type: string): NewEvent {
  return { type, data: { type }, metadata: { userId: 1, at: '2026-01-02T03:04:05.000Z' } };
}

async function open(
  t: Test,
  options: EsdbDoubleOptions = {},
): Promise<{ server: EsdbDouble; store: EventStoreDbEventStore }> {
  const server = await startEsdbDouble(options);
  const store = new EventStoreDbEventStore(server.url);
  t.teardown(async () => {
    await store.close();
    await server.close();
  });
  return { server, store };
}

async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

t.test('readAll and subscribeToAll after a number inside a record: the events after it', async (t) => {
  const { store } = await open(t);
  await store.append('s', [event('A'), event('B')], 0);
  const [a, b] = await store.readStream('s');
  await store.append('s', [event('C')], 2);
  const inside = b.position - 1;
  t.ok(inside > a.position, 'a number between two events, which the server refuses to read from');

  t.same(
    (await store.readAll(inside, 10)).map((e) => e.type),
    ['B', 'C'],
  );
  const seen: StoredEvent[] = [];
  const subscription = store.subscribeToAll(inside, async (batch) => {
    seen.push(...batch);
  });
  t.teardown(() => subscription.stop());
  await waitFor(() => seen.length >= 2, 'the events after the number');
  t.same(
    seen.map((e) => e.type),
    ['B', 'C'],
  );
});

t.test('the node own events, more of them than a page, are skipped by every read', async (t) => {
  const { server, store } = await open(t, { statsIntervalMs: 1 });
  const appended = await store.append('s', [event('A')], 0);
  const written = server.records().length;
  await waitFor(() => server.records().length > written + 600, 'the node writing 600 stats events');

  t.equal(await store.lastPosition(), appended.position, 'lastPosition pages back past them');
  t.equal(await store.countEvents(), 1);
  t.same(
    (await store.readAll(0, 10)).map((e) => e.type),
    ['A'],
  );
  t.same(await store.readAll(appended.position, 10), [], 'nothing but theirs after it');
});
