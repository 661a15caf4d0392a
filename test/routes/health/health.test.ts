import t from 'tap';
import { join } from 'node:path';
import { appModules } from '../../../app/modules.js';
import type { AppModule } from '../../../app/kernel.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { Collection, Document } from '../../../infra/document-store/port.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { SqliteEventStore } from '../../../infra/event-store/sqlite.js';
import type { VectorIndex } from '../../../infra/vector-index/port.js';
import { defineHandlerProjection, type Projected } from '../../../projections/projection.js';
import { PORTS } from '../../../routes/health/ports.js';
import { buildTestApp, ROLE_USERS } from '../../helper.js';

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };

/** Read models that can be switched off, as a MongoDB that went away. */
class SwitchableDocuments extends MemoryDocumentStore {
  down = false;
  override collection<T extends Document>(name: string): Collection<T> {
    if (this.down) throw new DependencyUnavailableError('MongoDB');
    return super.collection<T>(name);
  }
}

/** An event store whose reads stop answering, as an EventStoreDB behind a dead link. */
class HangingEventStore extends SqliteEventStore {
  down = false;
  override lastPosition(): Promise<number> {
    return this.down ? new Promise<number>(() => undefined) : super.lastPosition();
  }
}

/** Parks on every TestFault event: a handler that throws. */
const faultyModule: AppModule = {
  name: 'faulty',
  projections: [
    defineHandlerProjection<{ type: 'TestFault'; data: unknown }, ['TestFault']>({
      name: 'faulty',
      handles: ['TestFault'],
      async handle(_event: Projected<{ type: 'TestFault'; data: unknown }>) {
        throw new Error('cannot fold this');
      },
    }),
  ],
};

t.test('200 with every port, the projections and the job queues; no credentials needed', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) } });
  const res = await app.inject({ method: 'GET', url: '/health' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.status, 'ok');
  for (const port of PORTS) t.same(body.ports[port], { adapter: 'embedded', reachable: true }, port);
  t.equal(body.log.last_position, await runtime.eventStore.lastPosition());
  t.ok(body.log.last_position > 0);
  t.match(body.projections, [{ name: 'users', position: body.log.last_position, stale: false }]);
  t.same(body.parked, []);
  t.ok(Array.isArray(body.jobs.queues), 'the in-process queue tells its backlog');
  t.ok(
    body.jobs.queues.every(
      (q: Record<string, unknown>) =>
        typeof q.queue === 'string' &&
        Number.isInteger(q.waiting) &&
        Number.isInteger(q.active) &&
        Number.isInteger(q.failed),
    ),
  );
  const docs = (await app.inject({ method: 'GET', url: '/api/docs.json' })).json();
  t.ok(docs.paths['/health'].get.responses['503'], 'documented, with its 503');
});

t.test('a parked projection is listed with its event and error; the report says degraded, still 200', async (t) => {
  const { app, runtime } = await buildTestApp(t, { modules: [...appModules, faultyModule] });
  const { position } = await runtime.eventStore.append('test-1', [{ type: 'TestFault', data: {}, metadata: meta }], 0);
  await runtime.projections.catchUp();
  const res = await app.inject({ method: 'GET', url: '/health' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.status, 'degraded');
  t.match(body.parked, [{ name: 'faulty', position, event_type: 'TestFault', error: 'cannot fold this' }]);
  t.equal(body.parked.length, 1);
  t.match(
    body.projections.find((p: { name: string }) => p.name === 'faulty'),
    { position: position - 1, stale: true },
  );
  t.match(
    body.projections.find((p: { name: string }) => p.name === 'users'),
    { position, stale: false },
    'the others went on',
  );
});

t.test('503 with the same body when the document store is away', async (t) => {
  const documents = new SwitchableDocuments();
  const { app } = await buildTestApp(t, { infrastructure: { documents } });
  documents.down = true;
  const res = await app.inject({ method: 'GET', url: '/health' });
  t.equal(res.statusCode, 503);
  const body = res.json();
  t.equal(body.status, 'unavailable');
  t.same(body.ports.document_store, { adapter: 'embedded', reachable: false });
  t.equal(body.ports.event_store.reachable, true);
  documents.down = false;
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, 'and 200 once it is back');
});

t.test('503 within about a second when the event store does not answer', async (t) => {
  const dir = t.testdir();
  const eventStore = new HangingEventStore(join(dir, 'hanging-events.sqlite'));
  const { app } = await buildTestApp(t, { infrastructure: { eventStore } });
  eventStore.down = true;
  const began = Date.now();
  const res = await app.inject({ method: 'GET', url: '/health' });
  t.ok(Date.now() - began < 3000, 'bounded by the probe timeout');
  t.equal(res.statusCode, 503);
  const body = res.json();
  t.equal(body.ports.event_store.reachable, false);
  t.equal(body.log.last_position, null);
  t.equal(body.log.lag, null, 'no lag without the log position');
  t.equal(body.ports.document_store.reachable, true);
  eventStore.down = false;
});

t.test('the vector index checked is the one the chatbot module built for this runtime, as it is now', async (t) => {
  const { app, runtime } = await buildTestApp(t);
  const services = runtime.module(chatbotModule).services;
  const original = services.vectorIndex;
  t.teardown(() => {
    services.vectorIndex = original;
  });
  // The index as it is, but its size cannot be had: an Elasticsearch gone away.
  services.vectorIndex = Object.assign(Object.create(original) as VectorIndex, {
    size: () => Promise.reject(new DependencyUnavailableError('Elasticsearch')),
  });
  const body = (await app.inject({ method: 'GET', url: '/health' })).json();
  t.same(body.ports.vector_index, { adapter: 'embedded', reachable: false });
  t.equal(body.status, 'degraded');
  services.vectorIndex = original;
  t.same((await app.inject({ method: 'GET', url: '/health' })).json().ports.vector_index, {
    adapter: 'embedded',
    reachable: true,
  });
});
