import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import type { HealthReport } from '../../app/health/report.js';
import { PostgresEventStore } from '../../infra/event-store/postgres.js';
import { dropSchema, freshSchema } from '../infra/event-store/postgres-schemas.js';
import { chatbotFixture } from '../routes/chatbot/support.js';
import { importFixtureFile, runCli, startServer } from './process.js';

/**
 * `npm run rebuild`, `npm run reindex` and `npm run projections`, the real CLIs, on a deployment
 * whose log is PostgreSQL's (EVENTSTORE_URL with a schema of the test's own): what an operator of
 * stack:up's database runs.
 */

const PG_URL = process.env.PG_EVENTSTORE_URL;
// An import, a rebuild, a reindex, a server start and three CLI runs, each compiled by tsx.
t.setTimeout(600_000);

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };

async function eventsIn(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".events`);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

async function health(url: string): Promise<HealthReport> {
  return (await (await fetch(`${url}/health`)).json()) as HealthReport;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test(
  'rebuild, reindex and projections work on a PostgreSQL log',
  { skip: PG_URL ? false : 'PG_EVENTSTORE_URL unset' },
  async (t) => {
    const schema = freshSchema();
    t.teardown(() => dropSchema(PG_URL ?? '', schema));
    const url = new URL(PG_URL ?? '');
    url.searchParams.set('schema', schema);
    const dataDir = join(t.testdir(), 'data');
    const env = { DATA_DIR: dataDir, EVENTSTORE_URL: url.toString(), CHATBOT_SENTENCE_MODEL: 'off' };

    const imported = await importFixtureFile(dataDir, chatbotFixture, 'pg-clis', env);
    t.equal(imported.code, 0, imported.stderr);
    const events = await eventsIn(schema);
    t.ok(events > 0, `the import appended to the schema's log (${events} events)`);
    t.notOk(existsSync(join(dataDir, 'events.sqlite')), 'and to no SQLite log in DATA_DIR');

    const rebuilt = await runCli('rebuild.ts', [], env);
    t.equal(rebuilt.code, 0, rebuilt.stderr);
    t.match(rebuilt.stdout, `Rebuilt read models from ${events} events.`, "replays PostgreSQL's log, all of it");

    // The read models deleted: the reindex's runtime folds them again from PostgreSQL's log first.
    for (const name of readdirSync(dataDir).filter((f) => f.startsWith('read-models')))
      rmSync(join(dataDir, name), { force: true });
    const reindexed = await runCli('reindex.ts', [], env);
    t.equal(reindexed.code, 0, reindexed.stderr);
    t.match(reindexed.stdout, /Reindexed 6 public resources of 10 \(\d+ chunks\)\./);

    const server = await startServer(env, 120_000);
    t.teardown(() => server.stop());
    const { hostname, port } = new URL(server.baseUrl);
    const cliEnv = { ...env, HOST: hostname, PORT: port };
    const listed = await runCli('projections.ts', [], cliEnv);
    t.equal(listed.code, 0, listed.stderr);
    t.match(listed.stdout, `log position ${events}\nread models at ${events}, caught up\n`);

    // Another process appends an event the backups projection cannot fold: it parks, and the
    // CLI's skip, appended to PostgreSQL's log, lets it pass over it.
    const store = new PostgresEventStore(PG_URL ?? '', { schema });
    const bad = await store.append('backup-900', [{ type: 'BackupCompleted', data: null, metadata: meta }], 0);
    await store.close();
    await until('the backups projection to park', async () => (await health(server.baseUrl)).parked.length > 0);
    t.match((await health(server.baseUrl)).parked, [{ name: 'backups', position: bad.position }]);
    const skipped = await runCli('projections.ts', ['skip', 'backups', String(bad.position)], cliEnv);
    t.equal(skipped.code, 0, skipped.stderr);
    t.match(skipped.stdout, /backups resumed/);
    t.equal(await eventsIn(schema), bad.position + 1, 'the skip is an event of the PostgreSQL log');
    const after = await health(server.baseUrl);
    t.same(after.parked, []);
    t.same(after.log, { last_position: bad.position + 1, handled_position: bad.position + 1, lag: 0 });
  },
);
