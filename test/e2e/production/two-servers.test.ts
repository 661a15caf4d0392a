import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { importFixtureFile, runCli, startServer, type ServerProcess } from '../process.js';
import { chatbotFixture } from '../../routes/chatbot/support.js';
import { kafkaNamesFor } from '../../../infra/event-bus/kafka-names.js';
import { CHATBOT_READING } from '../../../queries/chatbot/reading-progress.js';
import { eventually, freshDataDir, postgresEnv, skipUnlessStack, stackEnv, send, type Reply } from './stack.js';

/**
 * Two server processes of one deployment on the production engines (issue 37, item 4): the same
 * DATA_DIR, MongoDB database, Elasticsearch index and Redis keys, and the same event log and
 * stored files: PostgreSQL's when PG_EVENTSTORE_URL is set (a schema of the test's own, as two
 * hosts would share them), else DATA_DIR's. The projections' Kafka consumer group gives the log's
 * one partition to one of them at a time.
 */
const fixture = {
  ...chatbotFixture,
  users: [
    {
      id: 1,
      email: 'editor@example.org',
      name: 'Ed',
      role: 'editor',
      password: 'editor-pass',
      api_keys: [{ identity: 'ED', credential: 'ED-SECRET' }],
    },
  ],
};
const KEY = 'key_identity=ED&key_credential=ED-SECRET';
const EACH = 10;

const idOf = (reply: Reply) => (reply.body as { 'o:id': number })['o:id'];

/** The process whose projections' consumer holds the group's partition (its Kafka client id names its pid), null while none does. */
async function partitionHolder(brokers: string, groupId: string): Promise<number | null> {
  const admin = new Kafka({
    clientId: 'two-servers-test',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    for (const member of groups[0]?.members ?? []) {
      const assignment = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      const partitions = Object.values(assignment?.assignment ?? {}).flat();
      if (partitions.length > 0) return Number(member.clientId.split('-').pop());
    }
    return null;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Every read-model document of the deployment's MongoDB database but the checkpoints, by
 * collection, sorted by _id. Empty collections are left out: a server makes a collection's
 * indexes at its first use, a rebuild only those it writes to.
 */
async function readModels(url: string): Promise<Record<string, unknown[]>> {
  const client = new MongoClient(url);
  await client.connect();
  try {
    const db = client.db();
    const out: Record<string, unknown[]> = {};
    for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      // Not read models of the log: the projections' checkpoints, and the pace at which the
      // chatbot's worker reads the collection (a measurement a rebuild does not make).
      if (name === '_checkpoints' || name === CHATBOT_READING) continue;
      const docs = await db.collection(name).find({}).toArray();
      if (docs.length > 0) out[name] = docs.sort((a, b) => String(a._id).localeCompare(String(b._id)));
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  } finally {
    await client.close();
  }
}

t.test('two servers on the production engines: one deployment', { skip: skipUnlessStack() }, async (t) => {
  const dataDir = freshDataDir(t.testdir());
  const postgres = postgresEnv(t);
  const env = { ...stackEnv(dataDir), ...postgres, CHATBOT_RATE_LIMIT: '4' };
  const groupId = `${kafkaNamesFor({ dataDir, mongoUrl: env.MONGO_URL }).groupPrefix}projections`;
  const imported = await importFixtureFile(dataDir, fixture, 'production-two', env);
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  if ('EVENTSTORE_URL' in postgres)
    t.notOk(existsSync(join(dataDir, 'events.sqlite')), "the log is PostgreSQL's, not DATA_DIR's");
  // Both at once, on a deployment whose read models are empty: each start waits (bounded) while
  // the group rebalances and one of them folds the log, rather than failing.
  const servers: ServerProcess[] = await Promise.all([startServer(env, 120_000), startServer(env, 120_000)]);
  t.teardown(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));
  const [one, two] = servers;

  // Every write is answered once the deployment's read models have it, whichever server folds:
  // so it is read on the other at once.
  for (const [n, server] of servers.entries()) {
    const created = await send(server, 'POST', `/api/blog_posts?${KEY}`, {
      title: `Written on ${n + 1}`,
      status: 'published',
    });
    t.equal(created.status, 201, `server ${n + 1} answers a create: ${JSON.stringify(created.body)}`);
    const other = servers[1 - n];
    const read = await send(other, 'GET', `/api/blog_posts/${idOf(created)}`);
    t.match(read, { status: 200, body: { 'o:title': `Written on ${n + 1}` } }, `the other server reads it at once`);
  }
  const created = await send(one, 'POST', `/api/blog_posts?${KEY}`, { title: 'Written on one', status: 'published' });
  const postId = idOf(created);
  const patched = await send(two, 'PATCH', `/api/blog_posts/${postId}?${KEY}`, { title: 'Renamed on two' });
  t.equal(patched.status, 200, `patched on two: ${JSON.stringify(patched.body)}`);
  t.match(
    (await send(one, 'GET', `/api/blog_posts/${postId}`)).body,
    { 'o:title': 'Renamed on two' },
    'and the first reads the other way round',
  );

  // /health's lag on both: the one not folding reads how far the shared read models are.
  for (const [n, server] of servers.entries()) {
    const log = await eventually(
      async () => (await send(server, 'GET', '/health')).body as { log: Record<string, number | null> },
      (body) => body.log.lag === 0,
    );
    t.match(log.log, { lag: 0, handled_position: log.log.last_position }, `server ${n + 1} reports no lag`);
  }

  // 20 concurrent creates of one slug, split over both servers: exactly one wins.
  const codes = await Promise.all(
    servers.flatMap((server, s) =>
      Array.from({ length: EACH }, (_, i) =>
        send(server, 'POST', `/api/blog_posts?${KEY}`, { title: `Post ${s * EACH + i}`, slug: 'shared' }).then(
          (r) => r.status,
        ),
      ),
    ),
  );
  t.equal(codes.filter((c) => c === 201).length, 1, `one 201 (${codes.join(' ')})`);
  t.equal(codes.filter((c) => c === 422).length, 2 * EACH - 1, 'the others 422');

  // A session made on one is good on the other (Redis).
  const login = await fetch(`${one.baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'editor@example.org', password: 'editor-pass' }),
  });
  t.equal(login.status, 204);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const bySession = await send(two, 'POST', '/api/blog_posts', { title: 'By session on two' }, { cookie });
  t.equal(bySession.status, 201, `the session opened on one writes on two: ${JSON.stringify(bySession.body)}`);

  // The chatbot's index: an item created on one is found by the other's chatbot.
  const item = await send(one, 'POST', `/api/items?${KEY}`, {
    'o:title': 'Orrery',
    'o:description': 'A clockwork orrery of the planets around the sun.',
    'o:site': [{ 'o:id': 1 }],
  });
  t.equal(item.status, 201);
  const itemUrl = `/item/${idOf(item)}`;
  const search = () =>
    send(
      two,
      'POST',
      '/chatbot/api/search',
      { query: 'clockwork orrery planets' },
      { 'x-forwarded-for': '198.51.100.8' },
    );
  const hasItem = (r: Reply) =>
    ((r.body as { results?: { url: string }[] }).results ?? []).some((x) => x.url === itemUrl);
  t.ok(hasItem(await eventually(search, hasItem, 30_000)), "the item written on one is in two's chatbot search");

  // One rate limit budget per address across both (CHATBOT_RATE_LIMIT 4).
  const address = { 'x-forwarded-for': '198.51.100.7' };
  const limited: number[] = [];
  for (let i = 0; i < 5; i++)
    limited.push((await send(servers[i % 2], 'POST', '/chatbot/api/search', { query: 'orrery' }, address)).status);
  t.same(limited, [200, 200, 200, 200, 429], 'the fifth request is refused, though each server saw at most three');

  // The server folding the log dies: the other takes its partition over and loses no event.
  const holder = await partitionHolder(env.KAFKA_BROKERS, groupId);
  const dead = servers.find((s) => s.child.pid === holder);
  t.ok(dead, `one of the two holds the group's partition (pid ${holder})`);
  const survivor = servers.find((s) => s !== dead) ?? two;
  await dead?.stop('SIGKILL');
  // Appended at once; answered once the survivor has the partition (the dead member's session
  // runs out first), or a 503 if that takes longer than a write waits: the event is in the log either way.
  const during = await send(survivor, 'POST', `/api/blog_posts?${KEY}`, {
    title: 'While the partner is gone',
    slug: 'while-gone',
    status: 'published',
  });
  t.ok([201, 503].includes(during.status), `a write while the group rebalances: ${during.status}`);
  const listed = await eventually(
    () => send(survivor, 'GET', '/api/blog_posts?search=partner%20is%20gone'),
    (r) => Array.isArray(r.body) && r.body.length === 1,
    30_000,
  );
  t.equal((listed.body as unknown[]).length, 1, 'the survivor folds it once it has the partition');
  const after = await send(survivor, 'POST', `/api/blog_posts?${KEY}`, { title: 'After the takeover' });
  t.equal(after.status, 201, 'and answers writes at once again');
  t.equal(await partitionHolder(env.KAFKA_BROKERS, groupId), survivor.child.pid, 'the survivor holds the partition');

  // Each projection applied each event once across the pair and the takeover: the read models
  // equal a rebuild of them from the log, on the same engines.
  await survivor.stop();
  const folded = await readModels(env.MONGO_URL);
  t.ok(Object.keys(folded).length > 5, `the read models are there (${Object.keys(folded).join(', ')})`);
  const rebuilt = await runCli('rebuild.ts', [], env);
  t.equal(rebuilt.code, 0, `rebuild exits 0: ${rebuilt.stderr}`);
  const replayed = await readModels(env.MONGO_URL);
  t.same(Object.keys(replayed), Object.keys(folded), 'the rebuild fills the same collections');
  for (const [name, docs] of Object.entries(folded)) t.same(replayed[name], docs, `${name}: as the rebuild folds it`);
});
