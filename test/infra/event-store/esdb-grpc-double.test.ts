import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
} from '@eventstore/db-client';
import { startEsdbDouble, type EsdbDouble } from './esdb-grpc-double.js';

// The double's own semantics, through the unmodified client: what the adapter's contract run
// relies on it to answer as an EventStoreDB node does.

async function connect(t: Test, options = {}): Promise<{ server: EsdbDouble; client: EventStoreDBClient }> {
  const server = await startEsdbDouble(options);
  const client = EventStoreDBClient.connectionString(server.url);
  t.teardown(async () => {
    await client.dispose();
    await server.close();
  });
  return { server, client };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of read) out.push(item);
  return out;
}

const event = (type: string, id?: string) => jsonEvent({ type, data: { type }, ...(id ? { id } : {}) });

t.test('expected revisions: no_stream, stream_exists, exact; the refusal carries the current revision', async (t) => {
  const { client } = await connect(t);
  const missing = await rejection(
    client.appendToStream('s-missing', [event('A')], { expectedRevision: STREAM_EXISTS }),
  );
  t.ok(missing instanceof WrongExpectedVersionError, 'stream_exists on a missing stream');
  t.equal((missing as WrongExpectedVersionError).actualVersion, NO_STREAM);

  const first = await client.appendToStream('s', [event('A'), event('B')], { expectedRevision: NO_STREAM });
  t.equal(first.nextExpectedRevision, 1n);
  const exists = await rejection(client.appendToStream('s', [event('C')], { expectedRevision: NO_STREAM }));
  t.equal((exists as WrongExpectedVersionError).actualVersion, 1n, 'no_stream on a stream of two events');
  const stale = await rejection(client.appendToStream('s', [event('C')], { expectedRevision: 0n }));
  t.equal((stale as WrongExpectedVersionError).expectedVersion, 0n);
  t.equal((stale as WrongExpectedVersionError).actualVersion, 1n);
  t.equal(
    (await client.appendToStream('s', [event('C')], { expectedRevision: STREAM_EXISTS })).nextExpectedRevision,
    2n,
  );
});

t.test('a retried append of the same event ids at the same revision succeeds once', async (t) => {
  const { client } = await connect(t);
  const id = randomUUID();
  const one = await client.appendToStream('s', [event('A', id)], { expectedRevision: NO_STREAM });
  const again = await client.appendToStream('s', [event('A', id)], { expectedRevision: NO_STREAM });
  t.same(again.position, one.position);
  t.equal((await collect(client.readStream('s'))).length, 1);
});

t.test('positions: each event at its own byte offset; an append answers its last', async (t) => {
  const { client } = await connect(t);
  const result = await client.appendToStream('s', [event('A'), event('B'), event('C')], {
    expectedRevision: NO_STREAM,
  });
  const read = await collect(client.readStream('s'));
  const positions = read.map((e) => e.event?.position);
  t.same(result.position?.commit, positions[2]?.commit, 'commit: the last event');
  t.same(result.position?.prepare, positions[0]?.prepare, 'prepare: the first (the transaction)');
  for (const position of positions) t.equal(position?.commit, position?.prepare);
  t.ok((positions[0]?.commit ?? 0n) < (positions[1]?.commit ?? 0n));
});

t.test('streams: a missing one is StreamNotFound; backwards from the end; counts', async (t) => {
  const { client } = await connect(t);
  t.ok((await rejection(collect(client.readStream('nope')))) instanceof StreamNotFoundError);
  await client.appendToStream('s', [event('A'), event('B'), event('C')]);
  const backwards = await collect(client.readStream('s', { direction: BACKWARDS, fromRevision: END, maxCount: 2 }));
  t.same(
    backwards.map((e) => e.event?.type),
    ['C', 'B'],
  );
  const middle = await collect(client.readStream('s', { direction: FORWARDS, fromRevision: 1n }));
  t.same(
    middle.map((e) => e.event?.type),
    ['B', 'C'],
  );
});

t.test(
  '$all carries the node own events; a forward read includes its position, a backward one stops before it',
  async (t) => {
    const { client } = await connect(t);
    await client.appendToStream('s', [event('A'), event('B')]);
    const all = await collect(client.readAll({ fromPosition: START, direction: FORWARDS }));
    t.equal(all[0]?.event?.streamId, '$epoch-information', 'the node writes its epoch first');
    t.ok(
      all.some((e) => e.event?.type === '$statsCollected'),
      'and its stats',
    );
    const b = all.find((e) => e.event?.type === 'B')?.event?.position;
    const fromB = await collect(client.readAll({ fromPosition: b ?? START, direction: FORWARDS }));
    t.equal(fromB[0]?.event?.type, 'B');
    const beforeB = await collect(client.readAll({ fromPosition: b ?? END, direction: BACKWARDS, maxCount: 1 }));
    t.equal(beforeB[0]?.event?.type, 'A');

    const inside = { commit: (b?.commit ?? 0n) - 1n, prepare: (b?.prepare ?? 0n) - 1n };
    const invalid = await rejection(collect(client.readAll({ fromPosition: inside, direction: FORWARDS })));
    t.equal((invalid as { code?: unknown }).code, 3, 'a position inside a record: INVALID_ARGUMENT');
  },
);

t.test('a filtered subscription to $all starts after its position, catches up, then goes live', async (t) => {
  const { client } = await connect(t, { statsIntervalMs: 5 });
  const first = await client.appendToStream('s', [event('A')]);
  await client.appendToStream('s', [event('B')]);
  const subscription = client.subscribeToAll({ fromPosition: first.position ?? START, filter: excludeSystemEvents() });
  t.teardown(() => subscription.unsubscribe());
  let caughtUp = false;
  subscription.on('caughtUp', () => (caughtUp = true));
  const seen: string[] = [];
  for await (const resolved of subscription as AsyncIterable<AllStreamResolvedEvent>) {
    seen.push(resolved.event?.type ?? '');
    if (seen.length === 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      t.ok(caughtUp, 'caught up before the live event');
      await client.appendToStream('s', [event('C')]);
    }
    if (seen.length === 2) break;
  }
  t.same(seen, ['B', 'C'], 'no system events, nothing at the start position');
});
