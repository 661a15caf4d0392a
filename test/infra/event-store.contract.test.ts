import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { DependencyUnavailableError, VersionConflictError } from '../../infra/errors.js';
import { EventStoreDbEventStore } from '../../infra/event-store/eventstoredb.js';
import type { EventStore, NewEvent, StoredEvent } from '../../infra/event-store/port.js';
import { PostgresEventStore } from '../../infra/event-store/postgres.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { startEsdbDouble } from './event-store/esdb-grpc-double.js';
import { dropSchema, freshSchema } from './event-store/postgres-schemas.js';

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

/** Builds a store for one test and closes it on teardown. */
type Factory = (t: Context) => Promise<EventStore>;

/** An esdb:// URL: EventStoreDB's suite. A postgres:// one (stack/up.sh prints one) is PG_EVENTSTORE_URL's business. */
const EVENTSTORE_URL = /^esdb(\+discover)?:\/\//i.test(process.env.EVENTSTORE_URL ?? '')
  ? process.env.EVENTSTORE_URL
  : undefined;
/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const PG_EVENTSTORE_URL = process.env.PG_EVENTSTORE_URL;

function event(type: string, data: Record<string, unknown> = {}): NewEvent {
  return { type, data, metadata: { userId: 7, at: '2026-01-02T03:04:05.000Z', requestId: 'req-1' } };
}

/** A stream id no other test (or earlier run against a shared server) has used. */
function freshStream(kind = 'thing'): string {
  return `${kind}-${randomUUID()}`;
}

async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

/** The one contract every EventStore adapter keeps; assertions are relative to the log's end, so a shared server works. */
function eventStoreContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;

    t.test('append to a new stream, then read it back with versions, data and metadata', async (t) => {
      const store = await make(t);
      const stream = freshStream();
      const result = await store.append(
        stream,
        [event('ThingCreated', { title: 'A' }), event('ThingRenamed', { title: 'B' })],
        0,
      );
      t.equal(result.streamVersion, 2);
      t.ok(result.position > 0, 'a global position');
      const read = await store.readStream(stream);
      t.same(
        read.map((e) => [e.streamId, e.streamVersion, e.type, e.data]),
        [
          [stream, 1, 'ThingCreated', { title: 'A' }],
          [stream, 2, 'ThingRenamed', { title: 'B' }],
        ],
      );
      t.same(read[0].metadata, { userId: 7, at: '2026-01-02T03:04:05.000Z', requestId: 'req-1' });
      t.equal(read[1].position, result.position, 'the append answers the position of its last event');
      t.ok(read[0].position < read[1].position, 'positions increase');
    });

    t.test('event data reads back as written: its keys in their order, and every character', async (t) => {
      const store = await make(t);
      const stream = freshStream();
      const data = { z: 1, a: 'nul \u0000 and \u{1F5FA} and \u2028', m: { b: [2, { y: null, x: true }], a: 1.5 } };
      await store.append(stream, [event('ThingCreated', data)], 0);
      const [read] = await store.readStream(stream);
      t.equal(JSON.stringify(read?.data), JSON.stringify(data));
      const [fromAll] = (await store.readAll((read?.position ?? 1) - 1, 1)).filter((e) => e.streamId === stream);
      t.equal(JSON.stringify(fromAll?.data), JSON.stringify(data), 'and from the whole log');
    });

    t.test('a missing stream reads as empty', async (t) => {
      const store = await make(t);
      t.same(await store.readStream(freshStream()), []);
      t.equal(await store.readLastEvent(freshStream()), null);
    });

    t.test('readLastEvent returns the newest event of the stream', async (t) => {
      const store = await make(t);
      const stream = freshStream();
      await store.append(stream, [event('A'), event('B'), event('C', { n: 3 })], 0);
      const last = await store.readLastEvent(stream);
      t.equal(last?.type, 'C');
      t.equal(last?.streamVersion, 3);
      t.same(last?.data, { n: 3 });
    });

    t.test('the expected version must match the number of events in the stream', async (t) => {
      const store = await make(t);
      const stream = freshStream();
      await store.append(stream, [event('A'), event('B')], 0);

      const exists = await rejection(store.append(stream, [event('X')], 0));
      t.ok(exists instanceof VersionConflictError, 'expected 0 on an existing stream conflicts');
      t.equal((exists as VersionConflictError).actual, 2);
      t.equal((exists as VersionConflictError).expected, 0);
      t.equal((exists as VersionConflictError).streamId, stream);

      const stale = await rejection(store.append(stream, [event('X'), event('Y')], 1));
      t.ok(stale instanceof VersionConflictError, 'a stale version conflicts');
      t.equal((stale as VersionConflictError).statusCode, 409);

      const ahead = await rejection(store.append(freshStream(), [event('X')], 3));
      t.ok(ahead instanceof VersionConflictError, 'expecting events in a missing stream conflicts');

      t.same(
        (await store.readStream(stream)).map((e) => e.type),
        ['A', 'B'],
        'a refused append writes nothing',
      );
      const ok = await store.append(stream, [event('C')], 2);
      t.equal(ok.streamVersion, 3);
    });

    t.test("'any' appends whatever the stream holds", async (t) => {
      const store = await make(t);
      const stream = freshStream();
      t.equal((await store.append(stream, [event('A')], 'any')).streamVersion, 1);
      t.equal((await store.append(stream, [event('B'), event('C')], 'any')).streamVersion, 3);
      t.same(
        (await store.readStream(stream)).map((e) => e.streamVersion),
        [1, 2, 3],
      );
    });

    t.test('readAll pages through the log after a position, oldest first', async (t) => {
      const store = await make(t);
      const base = await store.lastPosition();
      const one = freshStream('one');
      const two = freshStream('two');
      await store.append(one, [event('A1'), event('A2')], 0);
      await store.append(two, [event('B1')], 0);
      await store.append(one, [event('A3')], 2);
      await store.append(two, [event('B2')], 1);

      const pages: StoredEvent[][] = [];
      let after = base;
      for (;;) {
        const page = await store.readAll(after, 2);
        if (page.length === 0) break;
        pages.push(page);
        after = page[page.length - 1].position;
      }
      t.same(
        pages.map((p) => p.length),
        [2, 2, 1],
        'pages of at most the limit',
      );
      const all = pages.flat();
      t.same(
        all.map((e) => e.type),
        ['A1', 'A2', 'B1', 'A3', 'B2'],
        'append order across streams',
      );
      t.same(
        all.map((e) => e.streamId),
        [one, one, two, one, two],
      );
      for (let i = 1; i < all.length; i++) t.ok(all[i].position > all[i - 1].position, `position ${i} increases`);
      t.ok(all[0].position > base, 'strictly after the given position');

      const fromMiddle = await store.readAll(all[1].position, 10);
      t.same(
        fromMiddle.map((e) => e.type),
        ['B1', 'A3', 'B2'],
        'the event at the position itself is excluded',
      );
    });

    t.test('lastPosition and countEvents follow appends', async (t) => {
      const store = await make(t);
      const countBefore = await store.countEvents();
      const positionBefore = await store.lastPosition();
      const result = await store.append(freshStream(), [event('A'), event('B'), event('C')], 0);
      t.equal(await store.lastPosition(), result.position);
      t.ok(result.position > positionBefore);
      t.equal(await store.countEvents(), countBefore + 3);
    });

    t.test('an empty append changes nothing', async (t) => {
      const store = await make(t);
      const stream = freshStream();
      await store.append(stream, [event('A')], 0);
      const count = await store.countEvents();
      const result = await store.append(stream, [], 1);
      t.equal(result.streamVersion, 1);
      t.equal(await store.countEvents(), count);
    });

    t.test('subscribeToAll delivers the existing events, then new ones, in order', async (t) => {
      const store = await make(t);
      const base = await store.lastPosition();
      const stream = freshStream();
      await store.append(stream, [event('E1'), event('E2')], 0);
      const seen: StoredEvent[] = [];
      const subscription = store.subscribeToAll(base, async (batch) => {
        seen.push(...batch.filter((e) => e.streamId === stream));
      });
      t.teardown(() => subscription.stop());
      await waitFor(() => seen.length >= 2, 'existing events');
      await store.append(stream, [event('E3')], 2);
      await store.append(stream, [event('E4')], 3);
      await waitFor(() => seen.length >= 4, 'new events');
      t.same(
        seen.map((e) => e.type),
        ['E1', 'E2', 'E3', 'E4'],
        'each once, in order',
      );

      await subscription.stop();
      await store.append(stream, [event('E5')], 4);
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.equal(seen.length, 4, 'nothing is delivered after stop');
    });

    t.test('subscribeToAll starts strictly after the given position', async (t) => {
      const store = await make(t);
      const stream = freshStream();
      const first = await store.append(stream, [event('F1')], 0);
      await store.append(stream, [event('F2'), event('F3')], 1);
      const seen: string[] = [];
      const subscription = store.subscribeToAll(first.position, async (batch) => {
        for (const e of batch) {
          t.ok(e.position > first.position, 'after the start position');
          if (e.streamId === stream) seen.push(e.type);
        }
      });
      t.teardown(() => subscription.stop());
      await waitFor(() => seen.length >= 2, 'events after the position');
      t.same(seen, ['F2', 'F3']);
    });

    t.test('a failing handler gets the same events again; nothing is skipped', async (t) => {
      const store = await make(t);
      const base = await store.lastPosition();
      const stream = freshStream();
      await store.append(stream, [event('G1'), event('G2')], 0);
      let failures = 0;
      const handled: string[] = [];
      const subscription = store.subscribeToAll(base, async (batch) => {
        const mine = batch.filter((e) => e.streamId === stream);
        if (mine.length > 0 && failures === 0) {
          failures += 1;
          throw new Error('projection failed');
        }
        handled.push(...mine.map((e) => e.type));
      });
      t.teardown(() => subscription.stop());
      await waitFor(() => handled.length >= 2, 'redelivery');
      t.equal(failures, 1);
      t.same(handled, ['G1', 'G2']);
    });
  });
}

/**
 * Opens the log named `log` of this test: the same name, the same storage (a new handle on it);
 * another name, another log.
 */
type LogOpener = (t: Context, log: string) => Promise<EventStore>;

/** EventStore.identity: made with the log, kept in its storage, one per log. */
function identityContract(name: string, open: LogOpener | null, options: { skip?: string; oneLogOnly?: string } = {}) {
  t.test(`${name}: identity`, options.skip ? { skip: options.skip } : {}, async (t) => {
    const opener = open as LogOpener;

    t.test('stable across calls, handles and reopening', async (t) => {
      const first = await opener(t, 'a');
      const id = await first.identity();
      t.match(id, /^[0-9a-f-]{36}$/, 'a UUID');
      t.equal(await first.identity(), id, 'the same on every call');
      await first.append(freshStream(), [event('A')], 0);
      const second = await opener(t, 'a');
      t.equal(await second.identity(), id, 'another handle on the same log reads the same');
      await first.close();
      const third = await opener(t, 'a');
      t.equal(await third.identity(), id, 'the same after the log was closed and opened again');
    });

    t.test('two handles asking at once on a new log agree', async (t) => {
      const [one, two] = await Promise.all([opener(t, 'b'), opener(t, 'b')]);
      const [a, b] = await Promise.all([one.identity(), two.identity()]);
      t.equal(a, b);
    });

    t.test('two separate logs differ', options.oneLogOnly ? { skip: options.oneLogOnly } : {}, async (t) => {
      const a = await (await opener(t, 'c')).identity();
      const b = await (await opener(t, 'd')).identity();
      t.not(a, b);
    });

    t.test('the identity is no event: reads of the log do not return it', async (t) => {
      const store = await opener(t, 'e');
      const before = await store.lastPosition();
      const count = await store.countEvents();
      await store.identity();
      t.equal(await store.lastPosition(), before);
      t.equal(await store.countEvents(), count);
      t.same(await store.readAll(before, 10), []);
    });
  });
}

/** Each test's folder: t.testdir() makes it anew (empty) on every call. */
const testDirs = new WeakMap<Context, string>();
function dirOf(t: Context): string {
  const dir = testDirs.get(t) ?? t.testdir();
  testDirs.set(t, dir);
  return dir;
}

identityContract('SQLite event store', async (t, log) => {
  const store = new SqliteEventStore(join(dirOf(t), `${log}.sqlite`));
  t.teardown(() => store.close());
  return store;
});

/** Each test's PostgreSQL schemas by log name, dropped after it. */
const pgSchemas = new WeakMap<Context, Map<string, string>>();

identityContract(
  'PostgreSQL event store',
  PG_EVENTSTORE_URL
    ? async (t, log) => {
        let schemas = pgSchemas.get(t);
        if (!schemas) {
          const mine = new Map<string, string>();
          schemas = mine;
          pgSchemas.set(t, mine);
          t.teardown(async () => {
            for (const schema of mine.values()) await dropSchema(PG_EVENTSTORE_URL, schema);
          });
        }
        const schema = schemas.get(log) ?? freshSchema();
        schemas.set(log, schema);
        const store = new PostgresEventStore(PG_EVENTSTORE_URL, { schema });
        // Closed before the schemas are dropped: teardowns run last registered first.
        t.teardown(() => store.close());
        return store;
      }
    : null,
  { skip: PG_EVENTSTORE_URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)' },
);

identityContract(
  'EventStoreDB event store',
  EVENTSTORE_URL
    ? async (t) => {
        const store = new EventStoreDbEventStore(EVENTSTORE_URL);
        t.teardown(() => store.close());
        return store;
      }
    : null,
  {
    skip: EVENTSTORE_URL ? undefined : 'EVENTSTORE_URL unset',
    oneLogOnly: 'one EventStoreDB server is one log',
  },
);

// The identity against the gRPC double (below): one server in this process per log name of a test,
// kept as a promise, so handles opened at once on one name share the one server.
const esdbDoubles = new WeakMap<Context, Map<string, Promise<string>>>();

identityContract('EventStoreDB event store, against the gRPC double of the server', async (t, log) => {
  let urls = esdbDoubles.get(t);
  if (!urls) {
    urls = new Map();
    esdbDoubles.set(t, urls);
  }
  let url = urls.get(log);
  if (!url) {
    url = startEsdbDouble({ statsIntervalMs: 20 }).then((server) => {
      t.teardown(() => server.close());
      return server.url;
    });
    urls.set(log, url);
  }
  const store = new EventStoreDbEventStore(await url);
  // Closed before its server: teardowns run last registered first.
  t.teardown(() => store.close());
  return store;
});

eventStoreContract('SQLite event store', async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'));
  t.teardown(() => store.close());
  return store;
});

eventStoreContract('SQLite event store, checkpoints on a thread of their own (as the server does)', async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'), { checkpointThread: true });
  t.teardown(() => store.close());
  return store;
});

eventStoreContract('SQLite event store, committing on its own thread (EVENT_LOG_COMMITS=thread)', async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'), { commits: 'thread' });
  t.teardown(() => store.close());
  return store;
});

eventStoreContract(
  'EventStoreDB event store',
  EVENTSTORE_URL
    ? async (t) => {
        const store = new EventStoreDbEventStore(EVENTSTORE_URL);
        t.teardown(() => store.close());
        return store;
      }
    : null,
  EVENTSTORE_URL ? undefined : 'EVENTSTORE_URL is not an esdb:// URL',
);

// No EventStoreDB server is available here: the adapter, through the unmodified client, against a
// gRPC server in this process that speaks the protocol over an in-memory log (its own file says
// what it models). It writes its own system events every 20 ms, so they interleave with the tests'.
eventStoreContract('EventStoreDB event store, against the gRPC double of the server', async (t) => {
  const server = await startEsdbDouble({ statsIntervalMs: 20 });
  const store = new EventStoreDbEventStore(server.url);
  t.teardown(async () => {
    await store.close();
    await server.close();
  });
  return store;
});

t.test('EventStoreDB: an unreachable server is DependencyUnavailableError', async (t) => {
  const store = new EventStoreDbEventStore('esdb://127.0.0.1:1?tls=false');
  t.teardown(() => store.close());
  for (const [what, attempt] of [
    ['append', () => store.append(freshStream(), [event('A')], 0)],
    ['readStream', () => store.readStream(freshStream())],
    ['readAll', () => store.readAll(0, 10)],
  ] as const) {
    const error = await rejection(attempt());
    t.ok(error instanceof DependencyUnavailableError, `${what}: DependencyUnavailableError`);
    t.equal((error as DependencyUnavailableError).dependency, 'EventStoreDB');
  }
});

eventStoreContract(
  'PostgreSQL event store',
  PG_EVENTSTORE_URL
    ? async (t) => {
        // A schema per test, dropped after it: each test starts on an empty log of its own.
        const schema = freshSchema();
        const store = new PostgresEventStore(PG_EVENTSTORE_URL, { schema });
        t.teardown(async () => {
          await store.close();
          await dropSchema(PG_EVENTSTORE_URL, schema);
        });
        return store;
      }
    : null,
  PG_EVENTSTORE_URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
);

t.test('PostgreSQL: an unreachable server is DependencyUnavailableError', async (t) => {
  const store = new PostgresEventStore('postgres://postgres@127.0.0.1:1/test');
  t.teardown(() => store.close());
  for (const [what, attempt] of [
    ['append', () => store.append(freshStream(), [event('A')], 0)],
    ['readStream', () => store.readStream(freshStream())],
    ['readAll', () => store.readAll(0, 10)],
    ['lastPosition', () => store.lastPosition()],
  ] as const) {
    const error = await rejection(attempt());
    t.ok(error instanceof DependencyUnavailableError, `${what}: DependencyUnavailableError`);
    t.equal((error as DependencyUnavailableError).dependency, 'PostgreSQL');
    t.equal((error as DependencyUnavailableError).statusCode, 503);
  }
});
