import { existsSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import t, { type Test } from 'tap';
import { appModules } from '../../../app/modules.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { buildApp } from '../../../app/app.js';
import { createRuntime } from '../../../app/runtime.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { loadConfig } from '../../../infra/config.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { PostgresQuestionLog } from '../../../infra/question-log/postgres.js';
import { createQuestionLog } from '../../../infra/question-log/select.js';
import { SqliteQuestionLog } from '../../../infra/question-log/sqlite.js';
import { readSideFiles } from '../../../infra/read-side-files.js';
import { startupError } from '../../../infra/select.js';
import { importFixture } from '../../../app/import-fixture.js';
import { json, keyFor, ROLE_USERS } from '../../helper.js';
import { chatbotFixture, post, settle } from '../../routes/chatbot/support.js';
import { testConfig } from '../../test-config.js';
import { freshDatabase } from '../event-store/postgres-schemas.js';

/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const URL_OF_TESTS = process.env.PG_EVENTSTORE_URL;
const skip = URL_OF_TESTS ? false : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)';
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/test';
const DAY = 24 * 60 * 60 * 1000;

t.test('an unreachable server is DependencyUnavailableError, and stops a start naming QUESTION_LOG_URL', async (t) => {
  const log = new PostgresQuestionLog(UNREACHABLE);
  t.teardown(() => log.close());
  const error = await log.list({}, 0, 10).catch((reason: unknown) => reason);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal(error instanceof DependencyUnavailableError && error.dependency, 'question log');
  t.equal(error instanceof DependencyUnavailableError && error.statusCode, 503);

  const config = loadConfig({ DATA_DIR: t.testdir(), QUESTION_LOG_URL: UNREACHABLE });
  const refused = await createQuestionLog(config).catch((reason: unknown) => reason);
  t.match(
    refused,
    { name: 'DependencyUnavailableError', dependency: 'question log' },
    'its tables are asked for at once',
  );
  t.match(startupError(refused, config), {
    message: /question log is unavailable at 127\.0\.0\.1:1\. Check QUESTION_LOG_URL/,
  });
});

t.test(
  'QUESTION_LOG_URL picks PostgreSQL; unset, DATA_DIR/chatbot-questions.sqlite (and only then in a backup)',
  async (t) => {
    const dir = t.testdir();
    const local = await createQuestionLog(loadConfig({ DATA_DIR: dir }));
    t.teardown(() => local.close());
    t.ok(local instanceof SqliteQuestionLog);
    t.ok(existsSync(join(dir, 'chatbot-questions.sqlite')));
    const names = (env: Record<string, string>) =>
      readSideFiles(loadConfig({ DATA_DIR: dir, ...env })).map((f) => f.name);
    t.ok(names({}).includes('chatbot-questions.sqlite'));
    t.notOk(names({ QUESTION_LOG_URL: UNREACHABLE }).includes('chatbot-questions.sqlite'), 'PostgreSQL keeps them');
  },
);

/** A TCP relay to PostgreSQL that the test can take down: the database as an outage shows it. */
async function relay(t: Test, url: string): Promise<{ url: string; down(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const down = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(() => (server.listening ? down() : undefined));
  const through = new URL(url);
  through.host = `127.0.0.1:${address.port}`;
  return { url: through.toString(), down };
}

t.test(
  'two servers with a DATA_DIR each share the questions; an outage answers 503 and loses no answer',
  { skip },
  async (t) => {
    const database = await freshDatabase(t, URL_OF_TESTS as string, 'question_log');
    const { url, down } = await relay(t, database);
    const clock = new FixedClock(new Date('2026-03-01T09:00:00.000Z'));
    const server = async (name: string) => {
      const config = testConfig(join(t.testdir(), name), {
        baseUrl: 'http://test.local',
        questionLogUrl: url,
        chatbotRateLimit: 0,
        chatbotSentenceModel: false,
        chatbotQuestionRetentionDays: 30,
      });
      const runtime = await createRuntime(config, { modules: appModules, clock });
      t.teardown(() => runtime.close());
      await importFixture(runtime, { ...chatbotFixture, users: ROLE_USERS });
      const app = await buildApp(runtime);
      t.teardown(() => app.close());
      await settle(runtime);
      return { app, runtime, config };
    };
    const a = await server('a');
    const b = await server('b');
    const editor = keyFor('editor');
    const list = (app: typeof a.app) => app.inject({ method: 'GET', url: `/api/chatbot/questions?${editor}` });

    t.equal((await post(a.app, 'chat', { question: 'Who made the violin?', site_id: 1 })).statusCode, 200);
    clock.advance(60_000);
    t.equal((await post(b.app, 'chat', { question: 'Do you have dinosaur bones?' })).statusCode, 200);
    for (const { app } of [a, b]) {
      const res = await list(app);
      t.equal(res.statusCode, 200);
      t.same(
        json<{ question: string }[]>(res).map((q) => q.question),
        ['Do you have dinosaur bones?', 'Who made the violin?'],
        'each server lists what both were asked',
      );
    }
    const summary = await b.app.inject({ method: 'GET', url: `/api/chatbot/questions/summary?${editor}` });
    t.match(json(summary), { questions: 2 });
    for (const { config } of [a, b]) t.notOk(existsSync(join(config.dataDir, 'chatbot-questions.sqlite')));

    // Past the retention: the sweep on either server deletes the rows, their sources with them.
    clock.advance(30 * DAY);
    t.equal(await b.runtime.module(chatbotModule).services.questions.sweep(), 2);
    const direct = new pg.Client({ connectionString: database });
    await direct.connect();
    t.teardown(() => direct.end());
    const { rows } = await direct.query<{ questions: string; sources: string }>(
      'SELECT (SELECT COUNT(*) FROM chatbot_questions) AS questions, (SELECT COUNT(*) FROM chatbot_question_sources) AS sources',
    );
    t.same(rows, [{ questions: '0', sources: '0' }], 'no row is left in either table');

    // The database away: the list answers 503, a chat still answers and counts what went unrecorded.
    await down();
    const away = await list(a.app);
    t.equal(away.statusCode, 503);
    t.match(json(away), { errors: { error: /question log is unavailable/ } });
    t.equal((await post(a.app, 'chat', { question: 'Is the orrery on display?' })).statusCode, 200);
    t.equal(a.runtime.module(chatbotModule).skippedWrites().questions_not_recorded, 1);
  },
);
