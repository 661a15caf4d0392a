import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../../app/kernel.js';
import { healthReport, PORTS, type ModulePorts } from '../../queries/health/report.js';
import { OPERATIONS_TAG } from './tag.js';

const Port = Type.Object({
  adapter: Type.Union([Type.Literal('embedded'), Type.Literal('production')], {
    description: '`production` when the port\'s variable (EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL, ELASTICSEARCH_URL, REDIS_URL, COHERE_API_KEY) is set.',
  }),
  reachable: Type.Boolean({ description: 'A cheap check answered within about a second.' }),
});

const HealthBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')], {
    description: '`unavailable` (503): the event store or the document store is away. `degraded`: another port is away, a projection is parked, or the file system under DATA_DIR refuses writes (`storage`).',
  }),
  ports: Type.Object(Object.fromEntries(PORTS.map((port) => [port, Port]))),
  log: Type.Object({ last_position: Type.Union([Type.Integer(), Type.Null()], { description: 'Position of the newest event; null when the event store did not answer.' }) }),
  projections: Type.Array(
    Type.Object({
      name: Type.String(),
      position: Type.Integer({ description: 'The last log position this projection has dealt with.' }),
      stale: Type.Boolean({ description: 'Parked: its read model lacks the events after its position.' }),
    }),
  ),
  parked: Type.Array(
    Type.Object({
      name: Type.String(),
      position: Type.Integer({ description: 'The event its handler failed on; `npm run projections -- skip NAME POSITION` passes over it.' }),
      event_type: Type.String(),
      error: Type.String(),
      since: Type.String({ description: 'ISO 8601.' }),
    }),
  ),
  storage: Type.Object(
    {
      file_system: Type.Literal('DATA_DIR', { description: 'The file system the embedded stores write to, named by its variable.' }),
      refusing: Type.Array(Type.Union([Type.Literal('event_store'), Type.Literal('document_store')]), {
        description: 'The stores whose last write the file system refused. Writes answer 507 (full) or 503 meanwhile; reads go on. Empty again by itself once space is freed.',
      }),
      full: Type.Boolean({ description: 'No room left on the file system: the status is `degraded` until space is freed.' }),
      since: Type.Union([Type.String(), Type.Null()], { description: 'When the first refused write happened (ISO 8601); null when none is refused.' }),
      free_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Free bytes on the file system; null when it cannot be read.' }),
      size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    },
    { description: 'Whether the file system under DATA_DIR takes writes.' },
  ),
  jobs: Type.Object({
    queues: Type.Union(
      [Type.Array(Type.Object({ queue: Type.String(), waiting: Type.Integer(), active: Type.Integer(), failed: Type.Integer() })), Type.Null()],
      { description: 'Backlog of each queue this process has used; null when the job queue did not answer.' },
    ),
  }),
});

/**
 * GET /health: what a load balancer or an operator checks; no credentials, no secrets. The
 * ports other modules build are given by the composition (app/modules.ts).
 */
export const healthRoutes = (modulePorts: ModulePorts): RoutesPlugin => async (app, { runtime }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: [OPERATIONS_TAG],
        summary: 'Health of the ports, projections and job queues',
        description:
          'No authentication. 200 while the event store and the document store answer, 503 with the same body when either does not. Each port is checked with a timeout of about a second. A parked projection (its handler failed on an event) is listed with that event and the error, and reported stale: commands still answer while it is parked.',
        response: { 200: HealthBody, 503: HealthBody },
      },
    },
    async (_request, reply) => {
      const report = await healthReport(runtime, app.sessions, modulePorts);
      return reply.status(report.status === 'unavailable' ? 503 : 200).header('cache-control', 'no-store').send(report);
    },
  );
};
