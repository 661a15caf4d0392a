import pg from 'pg';
import t from 'tap';
import { createFileAreas } from '../../infra/file-storage/select.js';
import { createEventStore } from '../../infra/select.js';
import { freshSchemaUrl } from './event-store/postgres-schemas.js';
import { loadConfig } from '../../infra/config.js';
import { postgresLocation } from '../../infra/postgres-url.js';
import { createQuestionLog } from '../../infra/question-log/select.js';

t.test('?schema= is split off the URL the driver is given; the other parameters stay', async (t) => {
  t.same(postgresLocation('postgres://u:p%40ss@db:5432/log?schema=deploy_2&sslmode=disable', 'EVENTSTORE_URL'), {
    connectionString: 'postgres://u:p%40ss@db:5432/log?sslmode=disable',
    schema: 'deploy_2',
  });
  t.same(postgresLocation('postgresql://[::1]:5432/log?schema=a', 'FILES_URL'), {
    connectionString: 'postgresql://[::1]:5432/log',
    schema: 'a',
  });
  t.same(
    postgresLocation('postgres://db/log?sslmode=disable', 'EVENTSTORE_URL'),
    { connectionString: 'postgres://db/log?sslmode=disable', schema: undefined },
    'no schema: the URL as it was, the adapter keeps public',
  );
});

t.test('a bad schema stops the start, naming the variable and not the URL', async (t) => {
  for (const query of ['schema=1abc', 'schema=a-b', 'schema=', 'schema=a&schema=b', `schema=${'x'.repeat(64)}`]) {
    const url = `postgres://user:secret@db/log?${query}`;
    t.throws(
      () => loadConfig({ EVENTSTORE_URL: url }),
      { message: /^EVENTSTORE_URL: \?schema= must name one schema/ },
      query,
    );
    t.throws(() => loadConfig({ FILES_URL: url }), { message: /^FILES_URL: \?schema= must name one schema/ }, query);
    try {
      loadConfig({ EVENTSTORE_URL: url });
    } catch (error) {
      t.notMatch((error as Error).message, /secret/, 'the password is not repeated');
    }
  }
  t.equal(
    loadConfig({ EVENTSTORE_URL: 'esdb://db:2113?schema=1' }).eventStoreUrl,
    'esdb://db:2113?schema=1',
    'an EventStoreDB URL is not looked into',
  );
});

const PG_URL = process.env.PG_EVENTSTORE_URL;

t.test(
  "?schema= puts the event log's table and the stored files' tables in that schema",
  { skip: PG_URL ? false : 'PG_EVENTSTORE_URL unset' },
  async (t) => {
    const url = PG_URL ?? '';
    const { schema, url: located } = freshSchemaUrl(t, url);
    const config = loadConfig({ DATA_DIR: t.testdir(), EVENTSTORE_URL: located, FILES_URL: located });
    const store = await createEventStore(config);
    await store.append(
      's-1',
      [{ type: 'Noted', data: {}, metadata: { userId: null, at: '2026-01-01T00:00:00.000Z' } }],
      0,
    );
    await store.close();
    const areas = await createFileAreas(config);
    await areas.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      );
      t.same(
        tables.rows.map((r) => r.table_name),
        ['events', 'log_identity', 'stored_file_chunks', 'stored_files'],
      );
      const events = await client.query(`SELECT stream_id FROM "${schema}".events`);
      t.same(events.rows, [{ stream_id: 's-1' }]);
    } finally {
      await client.end();
    }
  },
);

t.test(
  'the log, the files and the questions given one new schema, started at once: each starts (one creates the schema)',
  { skip: PG_URL ? false : 'PG_EVENTSTORE_URL unset' },
  async (t) => {
    const url = PG_URL ?? '';
    // A deployment's first start runs all three adapters' set-up at the same moment: before they
    // shared one lock, one in a few of these failed on PostgreSQL's unique schema name.
    for (let round = 0; round < 12; round++) {
      const { url: located } = freshSchemaUrl(t, url);
      const config = loadConfig({
        DATA_DIR: t.testdir(),
        EVENTSTORE_URL: located,
        FILES_URL: located,
        QUESTION_LOG_URL: located,
      });
      const started = await Promise.allSettled([
        createEventStore(config).then(async (store) => {
          await store.identity();
          await store.close();
        }),
        createFileAreas(config).then((areas) => areas.close()),
        createQuestionLog(config).then((log) => log.close()),
      ]);
      const failed = started.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
      t.same(failed, [], `round ${round}: all three started`);
    }
  },
);
