import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import type { SessionStore } from '../../infra/session-store/port.js';
import { PORTS } from './ports.js';
import { OPERATIONS_TAG } from '../../infra/operations-tag.js';

const Port = Type.Object({
  adapter: Type.Union([Type.Literal('embedded'), Type.Literal('production')], {
    description:
      "`production` when the port's variable (EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL, ELASTICSEARCH_URL, REDIS_URL, COHERE_API_KEY) is set.",
  }),
  reachable: Type.Boolean({ description: 'A cheap check answered within about a second.' }),
});

const ChatbotReading = Type.Union(
  [
    Type.Object({
      resources: Type.Integer({ description: 'Items, media, site pages and blog posts the read models hold.' }),
      searchable_by_words: Type.Integer({
        description:
          "Resources whose index entry holds their current text, by its words at least (a private one's entry is its absence).",
      }),
      searchable_by_meaning: Type.Integer({
        description:
          "Resources whose index entry holds the sentence model's (or Cohere's) vectors of their current text.",
      }),
      reading: Type.Boolean({
        description:
          'True while some resource is not yet searchable by meaning; the log says in one line when the whole collection is.',
      }),
      seconds_left: Type.Union([Type.Integer(), Type.Null()], {
        description:
          'Estimated seconds until every resource is searchable by meaning, at the pace measured over the last two minutes; 0 when done, null when no pace was measured in the last five minutes.',
      }),
      questions_not_recorded: Type.Integer({
        description:
          "Patrons' questions answered since the start but not recorded for the librarians' report: the disk refused them (recording resumes by itself).",
      }),
      embeddings_not_cached: Type.Integer({
        description:
          'Vectors computed since the start but not kept in the embedding cache: the disk refused them (searches answer all the same).',
      }),
    }),
    Type.Null(),
  ],
  {
    description:
      'How far the chatbot has read the collection (also `npm run reindex -- --status`), and what it could not write on a refusing disk; null when the document store did not answer.',
  },
);

/** The body of GET /health (`npm run projections` reads it too: bin/projections.ts). */
export const HealthBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')], {
    description:
      '`unavailable` (503): the event store or the document store is away. `degraded`: another port is away, a projection is parked, or the file system under DATA_DIR refuses writes (`storage`).',
  }),
  ports: Type.Object(Object.fromEntries(PORTS.map((port) => [port, Port]))),
  log: Type.Object({
    last_position: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Position of the newest event; null when the event store did not answer.',
    }),
    handled_position: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "The position the read models hold every event up to (with servers sharing the read models, the furthest any server's projections saved); null when the document store did not answer.",
    }),
    lag: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        "Events in the log the read models have not folded yet (`last_position - handled_position`, 0 when caught up): reads may not show the newest writes while it is above 0. A lag that keeps growing means the projections cannot keep up or are stopped. Null when either position is unknown. A parked projection's own delay is in `projections` and `parked`.",
    }),
  }),
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
      position: Type.Integer({
        description: 'The event its handler failed on; `npm run projections -- skip NAME POSITION` passes over it.',
      }),
      event_type: Type.String(),
      error: Type.String(),
      since: Type.String({ description: 'ISO 8601.' }),
    }),
  ),
  storage: Type.Object(
    {
      file_system: Type.Literal('DATA_DIR', {
        description: 'The file system the embedded stores write to, named by its variable.',
      }),
      refusing: Type.Array(Type.Union([Type.Literal('event_store'), Type.Literal('document_store')]), {
        description:
          'The stores whose last write the file system refused. Writes answer 507 (full) or 503 meanwhile; reads go on. Empty again by itself once space is freed.',
      }),
      full: Type.Boolean({
        description: 'No room left on the file system: the status is `degraded` until space is freed.',
      }),
      since: Type.Union([Type.String(), Type.Null()], {
        description: 'When the first refused write happened (ISO 8601); null when none is refused.',
      }),
      free_bytes: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Free bytes on the file system; null when it cannot be read.',
      }),
      size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    },
    { description: 'Whether the file system under DATA_DIR takes writes.' },
  ),
  jobs: Type.Object({
    queues: Type.Union(
      [
        Type.Array(
          Type.Object({
            queue: Type.String(),
            waiting: Type.Integer(),
            active: Type.Integer(),
            failed: Type.Integer(),
          }),
        ),
        Type.Null(),
      ],
      { description: 'Backlog of each queue this process has used; null when the job queue did not answer.' },
    ),
  }),
  backup_schedule: Type.Union(
    [
      Type.Object({
        expression: Type.String({ description: 'BACKUP_SCHEDULE, a cron expression.' }),
        timezone: Type.String({ description: 'BACKUP_SCHEDULE_TZ (UTC when unset).' }),
        next_run: Type.String({ description: 'ISO 8601 (UTC) time of the next scheduled backup.' }),
        last: Type.Union(
          [
            Type.Object({
              tick: Type.String({ description: 'ISO 8601: the run it was made for.' }),
              status: Type.Union([Type.Literal('running'), Type.Literal('complete'), Type.Literal('failed')]),
              backup_id: Type.Union([Type.Integer(), Type.Null()], {
                description: 'The backup record (`GET /api/backups/{id}`); null when none could be recorded.',
              }),
              error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed; null otherwise.' }),
            }),
            Type.Null(),
          ],
          { description: 'The last scheduled run; null before the first.' },
        ),
      }),
      Type.Null(),
    ],
    { description: 'Scheduled backups (BACKUP_SCHEDULE); null when unset.' },
  ),
  chatbot: ChatbotReading,
  images: Type.Union(
    [
      Type.Object({
        derivatives_pending: Type.Integer({
          description: 'Media images whose derivatives the worker has still to make.',
        }),
        undecodable: Type.Integer({
          description:
            'Media images that could not be decoded: kept, with no derivatives and no image service (`npm run derivatives` tries again).',
        }),
      }),
      Type.Null(),
    ],
    { description: 'Media images and their derivatives; null when the document store did not answer.' },
  ),
  background: Type.Array(
    Type.Object({
      name: Type.String({
        description:
          '`chatbot-index-catch-up`: the vector index refilled from the read models, after an import or with its file deleted.',
      }),
      state: Type.Union([
        Type.Literal('running'),
        Type.Literal('done'),
        Type.Literal('failed'),
        Type.Literal('stopped'),
      ]),
      done: Type.Integer({ description: 'Units done so far (resources whose index job has ended).' }),
      total: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Units in all; null until the task has counted them.',
      }),
      started_at: Type.String({ description: 'ISO 8601.' }),
      finished_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null while running.' }),
      error: Type.Union([Type.String(), Type.Null()], {
        description: 'Why a failed task failed; the log has the details.',
      }),
    }),
    {
      description:
        'Work this start owes that no request waits for: it begins once the server listens, takes turns with requests, and is listed here with its progress from then on, oldest first. None for a start that owes nothing.',
    },
  ),
});

/**
 * The report /health answers, built by the composition (app/health/report.ts, which checks the
 * ports other modules build) and asked for with the app's session store at each request.
 */
export type HealthSource = (sessions: SessionStore) => Promise<{ status: 'ok' | 'degraded' | 'unavailable' }>;

/** GET /health: what a load balancer or an operator checks; no credentials, no secrets. */
export const healthRoutes =
  (healthReport: HealthSource): RoutesPlugin =>
  async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: [OPERATIONS_TAG],
          summary: 'Health of the ports, projections and job queues',
          description:
            'No authentication. 200 while the event store and the document store answer, 503 with the same body when either does not. Each port is checked with a timeout of about a second. A parked projection (its handler failed on an event) is listed with that event and the error, and reported stale: commands still answer while it is parked. Background work (the vector index refilled after an import) is listed with its progress; the server answers meanwhile.',
          response: { 200: HealthBody, 503: HealthBody },
        },
      },
      async (_request, reply) => {
        const report = await healthReport(app.sessions);
        return reply
          .status(report.status === 'unavailable' ? 503 : 200)
          .header('cache-control', 'no-store')
          .send(report);
      },
    );
  };
