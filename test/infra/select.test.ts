import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { loadConfig } from '../../infra/config.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { PostgresEventStore } from '../../infra/event-store/postgres.js';
import { createEventStore, createInfrastructure, startupError } from '../../infra/select.js';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const silent = pino({ level: 'silent' });

async function waitFor(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test(
  'two deployments on one Kafka broker each get their own log',
  { skip: KAFKA_BROKERS ? false : 'KAFKA_BROKERS unset' },
  async (t) => {
    const deployments = await Promise.all(
      ['one', 'two'].map(async (name) => {
        // A directory of its own per run: the broker keeps the topics of earlier runs.
        const infra = await createInfrastructure(
          loadConfig({ DATA_DIR: join(t.testdir(), randomUUID(), name), KAFKA_BROKERS }),
          silent,
        );
        t.teardown(() => infra.close());
        const stream = `${name}-${randomUUID()}`;
        // Both logs have events at positions 1 and 2: a shared topic would take one for the other.
        for (const type of ['First', 'Second']) {
          await infra.eventStore.append(
            stream,
            [{ type, data: { name }, metadata: { userId: null, at: '2026-01-02T03:04:05.000Z' } }],
            'any',
          );
        }
        const seen: StoredEvent[] = [];
        const subscription = await infra.bus.subscribe('projections', 0, async (events) => void seen.push(...events));
        t.teardown(() => subscription.stop());
        return { name, stream, seen };
      }),
    );
    for (const { name, seen } of deployments) await waitFor(() => seen.length >= 2, `${name}'s events`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const { name, stream, seen } of deployments) {
      t.same(
        seen.map((e) => [e.streamId, e.type]),
        [
          [stream, 'First'],
          [stream, 'Second'],
        ],
        `${name} folds its own events, and only those`,
      );
    }
  },
);

t.test('a dependency unavailable at start: the variable and its address in one line', async (t) => {
  const config = loadConfig({ ELASTICSEARCH_URL: 'http://elastic:secret@127.0.0.1:1' });
  const error = startupError(
    new DependencyUnavailableError('vector index', 'The vector index is unavailable.'),
    config,
  );
  t.ok(error instanceof DependencyUnavailableError);
  t.equal(
    (error as Error).message,
    'Cannot start: vector index is unavailable at 127.0.0.1:1. Check ELASTICSEARCH_URL or unset it to use the embedded default.',
  );
  const other = new Error('not a dependency');
  t.equal(startupError(other, config), other, 'other errors pass through');
});

t.test('EVENTSTORE_URL postgres:// or postgresql:// picks the PostgreSQL event store', async (t) => {
  for (const url of ['postgres://user:secret@127.0.0.1:1/log', 'postgresql://user:secret@127.0.0.1:1/log']) {
    // Nothing connects before the first use, so an address nobody answers at is enough.
    const store = await createEventStore(loadConfig({ DATA_DIR: t.testdir(), EVENTSTORE_URL: url }));
    t.ok(store instanceof PostgresEventStore, url.split(':')[0]);
    await store.close();
  }
  const error = startupError(
    new DependencyUnavailableError('PostgreSQL'),
    loadConfig({ EVENTSTORE_URL: 'postgres://user:secret@db.example.org:5432/log' }),
  );
  t.equal(
    (error as Error).message,
    'Cannot start: PostgreSQL is unavailable at db.example.org:5432. Check EVENTSTORE_URL or unset it to use the embedded default.',
  );
});
