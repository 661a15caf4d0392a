import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { BullMqJobQueue } from '../../infra/job-queue/bullmq.js';
import { ROLE_USERS } from '../helper.js';
import { freePort, runCli, startServer } from '../e2e/process.js';
import { REDIS_SERVER, startRedis } from '../throwaway-redis.js';

// Two child processes compile the app with tsx and Redis goes down and up twice: slow on a busy machine, never stuck.
t.setTimeout(240_000);

/** What "fail fast" means here: an answer, not a hang, while Redis is away. */
const FAST_MS = 5_000;
/** How long the server may take to notice Redis is back (it reconnects every 2 s at most). */
const RECOVERY_MS = 30_000;

const ADMIN_KEY = 'key_identity=global_admin-id&key_credential=global_admin-secret';
const EDITOR_KEY = 'key_identity=editor-id&key_credential=editor-secret';
const TOKEN = 'dependencies-down-token';

const fixture = {
  users: ROLE_USERS.filter((u) => u.role === 'global_admin' || u.role === 'editor'),
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  items: [{ id: 100, title: 'Map of Lisbon', description: 'An old harbour map of Lisbon.', site_ids: [1] }],
  directory: {
    library: { name: 'City Library', plan: 'plus' },
    tokens: [{ token: TOKEN, allowed_origins: [] }],
    databases: [
      {
        handle: 'jstor',
        name: 'JSTOR',
        description: 'Journals',
        url: 'https://www.jstor.org/',
        access: 'subscription',
      },
    ],
  },
};

interface Timed {
  status: number;
  body: unknown;
  ms: number;
}

async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const started = Date.now();
  // A hang would otherwise only end at the test timeout; abort a little after the bound instead.
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(FAST_MS * 3) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the assertion message
  }
  return { status: res.status, body, ms: Date.now() - started };
}

async function eventually(what: string, attempt: () => Promise<boolean>, ms = RECOVERY_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await attempt())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

t.test(
  'Redis down: requests that need it get a fast 503, the rest works, and the server recovers',
  { skip: REDIS_SERVER ? false : 'redis-server is not installed' },
  async (t) => {
    const dataDir = t.testdir();
    const file = join(dataDir, 'fixture.json');
    writeFileSync(file, JSON.stringify(fixture));
    const imported = await runCli('import.ts', [file], { DATA_DIR: dataDir });
    t.equal(imported.code, 0, imported.stderr);

    const redisPort = await freePort();
    let redis = await startRedis(redisPort);
    t.teardown(() => redis.stop());
    const server = await startServer(
      { DATA_DIR: dataDir, REDIS_URL: `redis://127.0.0.1:${redisPort}`, CHATBOT_RATE_LIMIT: '1000' },
      120_000,
    );
    t.teardown(() => server.stop());
    const at = (path: string) => `${server.baseUrl}${path}`;
    const json = (method: string, body: unknown): RequestInit => ({
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const backup = () =>
      timed(
        at(`/api/backups?${ADMIN_KEY}`),
        json('POST', { include_files: false, include_themes: false, include_modules: false, include_api: false }),
      );
    const search = (query: string) => timed(at('/chatbot/api/search'), json('POST', { query }));
    const directory = () => timed(at(`/api/v1/databases?token=${TOKEN}`));
    const admin = ROLE_USERS.find((u) => u.role === 'global_admin') as (typeof ROLE_USERS)[number];
    /** Logs in; answers the status and the session cookie, if one was set. */
    const login = async (): Promise<{ status: number; cookie: string | null; ms: number; body: unknown }> => {
      const started = Date.now();
      const res = await fetch(at('/login'), {
        ...json('POST', { email: admin.email, password: admin.password }),
        signal: AbortSignal.timeout(FAST_MS * 3),
      });
      const text = await res.text();
      const cookie = /^(sid=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null;
      return {
        status: res.status,
        cookie,
        ms: Date.now() - started,
        body: text ? (JSON.parse(text) as unknown) : null,
      };
    };
    const asSession = (cookie: string) => timed(at('/api/backups'), { headers: { cookie } });
    let session = '';

    await t.test('with Redis up, a backup is made on the queue and the chatbot answers', async (t) => {
      const made = await backup();
      t.equal(made.status, 201, JSON.stringify(made.body));
      t.equal((made.body as Record<string, unknown>)['o:status'], 'complete');
      t.equal((await search('Lisbon harbour')).status, 200);
      t.equal((await directory()).status, 200);
      const loggedIn = await login();
      t.equal(loggedIn.status, 204, 'sessions are kept in Redis');
      session = loggedIn.cookie as string;
      t.equal((await asSession(session)).status, 200, 'the session authenticates');
    });

    await redis.stop();

    await t.test('with Redis down, the backup is refused with 503 and the native error body, fast', async (t) => {
      const refused = await backup();
      t.equal(refused.status, 503, JSON.stringify(refused.body));
      t.match(refused.body, { errors: { error: /Redis is unavailable/ } });
      t.same(Object.keys((refused.body as { errors: object }).errors), ['error'], 'the documented shape, nothing else');
      t.ok(refused.ms < FAST_MS, `answered in ${refused.ms} ms`);
      const all = await timed(at(`/api/backups?${ADMIN_KEY}`));
      t.equal(all.status, 200, 'the backup list is a read: it still works');
      t.same(
        (all.body as { 'o:status': string }[]).map((record) => record['o:status']),
        ['complete'],
        'the refused backup left no record: only the one made before',
      );
    });

    await t.test('with Redis down, the chatbot is refused with 503 and its plain error body, fast', async (t) => {
      for (const path of ['/chatbot/api/search', '/chatbot/api/chat']) {
        const refused = await timed(
          at(path),
          json('POST', path.endsWith('search') ? { query: 'Lisbon' } : { question: 'Where is Lisbon?' }),
        );
        t.equal(refused.status, 503, `${path}: ${JSON.stringify(refused.body)}`);
        t.same(refused.body, { error: 'The rate limit store is unavailable.' });
        t.ok(refused.ms < FAST_MS, `${path} answered in ${refused.ms} ms`);
      }
    });

    await t.test('with Redis down, logins and requests with a session are refused with 503, fast', async (t) => {
      const refusedLogin = await login();
      t.equal(refusedLogin.status, 503, JSON.stringify(refusedLogin.body));
      // The failed-login count and the session are both kept in Redis: whichever is asked first answers.
      t.match(refusedLogin.body, { errors: { error: /^The (failed-login counter|session store) is unavailable\.$/ } });
      t.equal(refusedLogin.cookie, null, 'no cookie for a session that was never stored');
      t.ok(refusedLogin.ms < FAST_MS, `the login answered in ${refusedLogin.ms} ms`);
      const refused = await asSession(session);
      t.equal(refused.status, 503, 'a session that cannot be checked is neither trusted nor taken for anonymous');
      t.match(refused.body, { errors: { error: 'The session store is unavailable.' } });
      t.ok(refused.ms < FAST_MS, `the request with a session answered in ${refused.ms} ms`);
    });

    let createdId = 0;
    await t.test('with Redis down, reads and writes that do not need it still work, fast', async (t) => {
      const items = await timed(at('/api/items'));
      t.equal(items.status, 200);
      t.ok(items.ms < FAST_MS, `GET /api/items answered in ${items.ms} ms`);
      // The write's chatbot index job cannot be queued: it is postponed, and the write is not held up.
      const created = await timed(
        at(`/api/items?${EDITOR_KEY}`),
        json('POST', {
          'o:title': 'Zanzibar quay chart',
          'o:description': 'A chart of the Zanzibar quay.',
          'o:is_public': true,
        }),
      );
      t.equal(created.status, 201, JSON.stringify(created.body));
      t.ok(created.ms < FAST_MS, `POST /api/items answered in ${created.ms} ms`);
      createdId = (created.body as { 'o:id': number })['o:id'];
      const read = await timed(at(`/api/items/${createdId}`));
      t.equal(read.status, 200, 'the writer reads its own write');
      // The directory's rate limit lets requests through rather than refusing or waiting for Redis.
      const listed = await directory();
      t.equal(listed.status, 200, JSON.stringify(listed.body));
      t.ok(listed.ms < FAST_MS, `the directory answered in ${listed.ms} ms`);
    });

    redis = await startRedis(redisPort);

    await t.test('with Redis back, the same server makes backups and answers the chatbot again', async (t) => {
      await eventually('a backup is made again', async () => (await backup()).status === 201);
      await eventually('the chatbot answers again', async () => (await search('Lisbon')).status === 200);
      await eventually('the item written while Redis was down is indexed', async () => {
        const found = await search('Zanzibar quay chart');
        return (
          found.status === 200 &&
          (found.body as { results: { url: string }[] }).results.some((r) => r.url === `/item/${createdId}`)
        );
      });
      await eventually('logins work again', async () => (await login()).status === 204);
      const again = await login();
      t.equal((await asSession(again.cookie as string)).status, 200, 'a new session authenticates');
      t.equal(server.child.exitCode, null, 'the server never stopped');
      const complete = await timed(at(`/api/backups?status=complete&${ADMIN_KEY}`));
      t.equal((complete.body as unknown[]).length, 2, 'the backup before the outage and the one after');
      const all = await timed(at(`/api/backups?${ADMIN_KEY}`));
      t.equal((all.body as unknown[]).length, 2, 'and no record of the ones refused while Redis came back');
    });
  },
);

t.test(
  'the BullMQ queue: a wait cut off by Redis going away fails fast; the worker resumes when it is back',
  { skip: REDIS_SERVER ? false : 'redis-server is not installed' },
  async (t) => {
    const redisPort = await freePort();
    let redis = await startRedis(redisPort);
    t.teardown(() => redis.stop());
    const queue = await BullMqJobQueue.connect({ url: `redis://127.0.0.1:${redisPort}`, prefix: 'dependencies-down' });
    t.teardown(() => queue.close());
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    await queue.process<{ hold: boolean; n: number }, number>('work', async ({ hold, n }) => {
      if (hold) await held;
      return n * 2;
    });
    t.equal(await queue.addAndWait('work', { hold: false, n: 1 }), 2, 'works while Redis is up');

    const waiting = queue.addAndWait('work', { hold: true, n: 2 }).then(
      () => null,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killed = Date.now();
    await redis.stop();
    const error = await waiting;
    t.ok(
      error instanceof DependencyUnavailableError,
      `the waiting caller is told Redis is unavailable (${String(error)})`,
    );
    t.ok(Date.now() - killed < FAST_MS, 'without waiting for the job');
    release();

    redis = await startRedis(redisPort);
    await eventually('the queue takes jobs again', async () => queue.available);
    const started = Date.now();
    const result = await queue
      .addAndWait('work', { hold: false, n: 21 }, { timeoutMs: RECOVERY_MS })
      .catch((e: unknown) => e);
    t.equal(result, 42, `the same worker processes jobs again (${String(result)})`);
    t.ok(Date.now() - started < RECOVERY_MS);
  },
);

t.test(
  'a store the server cannot run without, unreachable at start: it exits with one line naming the variable and the address',
  async (t) => {
    const closedPort = await freePort();
    // Credentials in the URLs: the line names where the store was looked for, never the secret.
    const cases = [
      {
        variable: 'EVENTSTORE_URL',
        value: `esdb://admin:esdb-secret@127.0.0.1:${closedPort}?tls=false`,
        dependency: 'EventStoreDB',
      },
      {
        variable: 'EVENTSTORE_URL',
        value: `postgres://reader:pg-secret@127.0.0.1:${closedPort}/collections?sslmode=disable`,
        dependency: 'PostgreSQL',
      },
      {
        variable: 'MONGO_URL',
        value: `mongodb://reader:mongo-secret@127.0.0.1:${closedPort}/collections?authSource=admin`,
        dependency: 'MongoDB',
      },
      { variable: 'KAFKA_BROKERS', value: `127.0.0.1:${closedPort}`, dependency: 'Kafka' },
      {
        variable: 'ELASTICSEARCH_URL',
        value: `http://elastic:es-secret@127.0.0.1:${closedPort}`,
        dependency: 'vector index',
      },
    ];
    // Each server listens on a port of its own, never the closed one: the server listens before its
    // workers first reach the vector index, which would otherwise find the server itself there.
    const runs = await Promise.all(
      cases.map(async ({ variable, value }, i) =>
        runCli('serve.ts', [], {
          // Two cases set EVENTSTORE_URL: a directory per case.
          DATA_DIR: join(t.testdir(), `${i}-${variable}`),
          PORT: String(await freePort()),
          [variable]: value,
        }),
      ),
    );
    cases.forEach(({ variable, dependency }, i) => {
      const run = runs[i] as Awaited<ReturnType<typeof runCli>>;
      t.equal(run.code, 1, `${variable}: exits with 1`);
      t.equal(
        run.stderr.trim(),
        `Cannot start: ${dependency} is unavailable at 127.0.0.1:${closedPort}. Check ${variable} or unset it to use the embedded default.`,
        `${variable}: one line with the address and what to check, no stack trace`,
      );
      t.notMatch(
        run.stderr,
        /secret|reader|admin@|elastic@|collections|authSource/,
        `${variable}: neither credentials nor the rest of the URL`,
      );
    });
  },
);
