import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import { KafkaEventBus } from '../../infra/event-bus/kafka.js';
import type { EventBus } from '../../infra/event-bus/port.js';
import type { EventStore, NewEvent, StoredEvent, Subscription } from '../../infra/event-store/port.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

interface Setup {
  store: EventStore;
  bus: EventBus;
  /** Closes the bus and opens a new one over the same store (and topic), as a process restart would. */
  restart(): Promise<EventBus>;
}

/** Builds a store and a bus for one test and closes both on teardown. */
type Factory = (t: Context) => Promise<Setup>;

const KAFKA_BROKERS = process.env.KAFKA_BROKERS?.split(',')
  .map((b) => b.trim())
  .filter(Boolean);
const silent = pino({ level: 'silent' });
/** How long stopping an idle subscription may take. */
const STOP_MS = 1500;

function event(type: string): NewEvent {
  return { type, data: { type }, metadata: { userId: null, at: '2026-01-02T03:04:05.000Z' } };
}

async function waitFor(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collects what a group receives; the subscription is stopped on teardown. */
async function collect(
  t: Context,
  bus: EventBus,
  group: string,
  after: number,
  fail?: (batch: StoredEvent[]) => boolean,
) {
  const seen: StoredEvent[] = [];
  const subscription: Subscription = await bus.subscribe(group, after, async (batch) => {
    if (fail?.(batch)) throw new Error('handler failed');
    seen.push(...batch);
  });
  t.teardown(() => subscription.stop());
  return { seen, subscription };
}

/** Appends `count` events spread over two streams and returns them as stored, oldest first. */
async function appendSome(store: EventStore, count: number, label: string): Promise<StoredEvent[]> {
  const streams = [`a-${randomUUID()}`, `b-${randomUUID()}`];
  for (let i = 0; i < count; i++) {
    const stream = streams[i % 2];
    await store.append(stream, [event(`${label}${i}`)], 'any');
  }
  return (await store.readAll(0, 100_000)).filter((e) => streams.includes(e.streamId));
}

const positions = (events: StoredEvent[]) => events.map((e) => e.position);

/** Each stream's events arrive in stream order. */
function inStreamOrder(events: StoredEvent[]): boolean {
  const last = new Map<string, number>();
  for (const e of events) {
    if ((last.get(e.streamId) ?? 0) >= e.streamVersion) return false;
    last.set(e.streamId, e.streamVersion);
  }
  return true;
}

/** The one contract every EventBus adapter keeps. */
function eventBusContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;

    t.test('delivers every event after the position: those already stored, then new ones, in order', async (t) => {
      const { store, bus } = await make(t);
      const before = await appendSome(store, 4, 'old');
      const { seen } = await collect(t, bus, 'projections', 0);
      await waitFor(() => seen.length >= 4, 'stored events');
      const after = await appendSome(store, 4, 'new');
      const expected = [...before, ...after];
      await waitFor(() => seen.length >= expected.length, 'new events');
      t.same(
        positions(seen).sort((a, b) => a - b),
        positions(expected),
        'each event once',
      );
      t.ok(inStreamOrder(seen), 'in order per stream');
      t.same(
        seen.map((e) => e.type).filter((x) => x.startsWith('old')),
        ['old0', 'old1', 'old2', 'old3'],
      );
      t.same(seen[0].data, { type: seen[0].type }, 'data survives the trip');
      t.same(seen[0].metadata, { userId: null, at: '2026-01-02T03:04:05.000Z' }, 'metadata survives the trip');
    });

    t.test('skips events at or before the given position', async (t) => {
      const { store, bus } = await make(t);
      const events = await appendSome(store, 6, 'e');
      const { seen } = await collect(t, bus, 'late-group', events[2].position);
      await waitFor(() => seen.length >= 3, 'events after the position');
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.same(positions(seen), positions(events.slice(3)));
    });

    t.test('every group gets every event', async (t) => {
      const { store, bus } = await make(t);
      const events = await appendSome(store, 3, 'g');
      const one = await collect(t, bus, 'group-one', 0);
      const two = await collect(t, bus, 'group-two', 0);
      await waitFor(() => one.seen.length >= 3 && two.seen.length >= 3, 'both groups');
      t.same(positions(one.seen), positions(events));
      t.same(positions(two.seen), positions(events));
    });

    t.test(
      'a group subscribing again gets what follows the position it gives, whatever it consumed before',
      async (t) => {
        const { store, bus } = await make(t);
        const events = await appendSome(store, 4, 'r');
        const first = await collect(t, bus, 'rebuilt', 0);
        await waitFor(() => first.seen.length >= 4, 'first pass');
        await first.subscription.stop();

        const replay = await collect(t, bus, 'rebuilt', 0);
        await waitFor(() => replay.seen.length >= 4, 'replay from 0');
        t.same(positions(replay.seen), positions(events), 'a rebuild from 0 sees everything again');
        await replay.subscription.stop();

        const more = await appendSome(store, 2, 's');
        const resumed = await collect(t, bus, 'rebuilt', events[3].position);
        await waitFor(() => resumed.seen.length >= 2, 'resume');
        await new Promise((resolve) => setTimeout(resolve, 300));
        t.same(positions(resumed.seen), positions(more), 'resuming from a checkpoint sees only what follows');
      },
    );

    t.test('a failing handler gets the events again', async (t) => {
      const { store, bus } = await make(t);
      const events = await appendSome(store, 2, 'f');
      let failed = false;
      const { seen } = await collect(t, bus, 'flaky', 0, () => !failed && (failed = true));
      await waitFor(() => seen.length >= 2, 'redelivery', 60_000);
      t.ok(failed, 'the first batch failed');
      t.same(positions(seen), positions(events), 'the failed batch came again; nothing skipped');
    });

    t.test('nothing is delivered after stop', async (t) => {
      const { store, bus } = await make(t);
      await appendSome(store, 1, 'x');
      const { seen, subscription } = await collect(t, bus, 'stopper', 0);
      await waitFor(() => seen.length >= 1, 'first event');
      await subscription.stop();
      await appendSome(store, 2, 'y');
      await new Promise((resolve) => setTimeout(resolve, 500));
      t.equal(seen.length, 1);
    });

    t.test('stop returns promptly, even while the subscription waits for new events', async (t) => {
      const { store, bus } = await make(t);
      await appendSome(store, 1, 'w');
      const { seen, subscription } = await collect(t, bus, 'prompt-stop', 0);
      await waitFor(() => seen.length >= 1, 'first event');
      // Idle now: a consumer is in the middle of a long poll for more.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const started = Date.now();
      await subscription.stop();
      const took = Date.now() - started;
      // A server's shutdown and a rebuild wait on this; closeWithGrace gives the whole shutdown 10 s.
      t.ok(took < STOP_MS, `stopped in ${took} ms`);
    });

    t.test('after a restart every event is still delivered once and new ones keep flowing', async (t) => {
      const setup = await make(t);
      const before = await appendSome(setup.store, 3, 'p');
      const first = await collect(t, setup.bus, 'watch', 0);
      await waitFor(() => first.seen.length >= 3, 'before restart');
      await first.subscription.stop();
      const bus = await setup.restart();
      const after = await appendSome(setup.store, 2, 'q');
      const fresh = await collect(t, bus, `fresh-${randomUUID()}`, 0);
      await waitFor(() => fresh.seen.length >= 5, 'after restart');
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.same(
        positions(fresh.seen).sort((a, b) => a - b),
        positions([...before, ...after]),
        'no event lost or forwarded twice',
      );
    });
  });
}

function sqliteStore(t: Context, file = 'events.sqlite'): EventStore {
  const store = new SqliteEventStore(join(t.testdir(), file));
  t.teardown(() => store.close());
  return store;
}

eventBusContract('embedded event bus', async (t) => {
  const store = sqliteStore(t);
  let bus: EventBus = new EmbeddedEventBus(store);
  t.teardown(() => bus.close());
  return {
    store,
    bus,
    async restart() {
      await bus.close();
      bus = new EmbeddedEventBus(store);
      return bus;
    },
  };
});

eventBusContract(
  'Kafka event bus',
  KAFKA_BROKERS
    ? async (t) => {
        const store = sqliteStore(t);
        const topic = `events-test-${randomUUID()}`;
        const start = () => KafkaEventBus.start({ brokers: KAFKA_BROKERS, store, logger: silent, topic });
        let bus: EventBus = await start();
        // Registered after the store's teardown, so it runs first (tap runs teardowns in reverse).
        t.teardown(() => bus.close());
        return {
          store,
          bus,
          async restart() {
            await bus.close();
            bus = await start();
            return bus;
          },
        };
      }
    : null,
  KAFKA_BROKERS ? undefined : 'KAFKA_BROKERS unset',
);

t.test('Kafka: an unreachable broker fails start-up with DependencyUnavailableError', async (t) => {
  const store = sqliteStore(t);
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
  );
  const error = await KafkaEventBus.start({
    brokers: ['127.0.0.1:1'],
    store,
    logger,
    retries: 1,
    connectionTimeoutMs: 300,
  }).then(
    (bus) => bus.close().then(() => null),
    (e: unknown) => e,
  );
  t.ok(error instanceof DependencyUnavailableError, 'DependencyUnavailableError');
  t.equal((error as DependencyUnavailableError).dependency, 'Kafka');
  // The start's caller says it in one line (app/runtime.ts); kafkajs' own lines for each failed
  // attempt, errors with stack traces, would bury it.
  t.same(
    lines.filter((l) => l.level >= 40).map((l) => l.msg),
    [],
    'no warning or error logged for the attempts',
  );
  t.ok(
    lines.some((l) => /ECONNREFUSED/.test(l.msg)),
    'the attempts are in the debug log',
  );
});

t.test(
  'Kafka: a topic filled from another log refuses the start',
  { skip: KAFKA_BROKERS ? false : 'KAFKA_BROKERS unset' },
  async (t) => {
    const brokers = KAFKA_BROKERS as string[];
    const topic = `events-test-${randomUUID()}`;
    const first = sqliteStore(t);
    await appendSome(first, 3, 'old');
    const bus = await KafkaEventBus.start({ brokers, store: first, logger: silent, topic });
    const { seen } = await collect(t, bus, 'witness', 0);
    await waitFor(() => seen.length >= 3, 'the first log in the topic');
    await bus.close();

    // The data directory wiped and started again: a new log, whose positions start at 1 again.
    for (const [label, count] of [
      ['a shorter log', 2],
      ['a log as long', 3],
    ] as const) {
      const replaced = sqliteStore(t, `replaced-${count}.sqlite`);
      await appendSome(replaced, count, 'new');
      const error = await KafkaEventBus.start({ brokers, store: replaced, logger: silent, topic }).then(
        (bus) => bus.close().then(() => null),
        (e: unknown) => e,
      );
      t.match(error, { message: `Kafka topic ${topic} holds another event log than this one` }, `${label} is refused`);
    }

    const same = await KafkaEventBus.start({ brokers, store: first, logger: silent, topic });
    t.teardown(() => same.close());
    t.pass('its own log starts');
  },
);
