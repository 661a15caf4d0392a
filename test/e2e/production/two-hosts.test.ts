import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import sharp from 'sharp';
import t from 'tap';
import { runCli, startServer, type ServerProcess } from '../process.js';
import { chatbotFixture } from '../../routes/chatbot/support.js';
import { kafkaNamesFor } from '../../../infra/event-bus/kafka-names.js';
import { eventually, freshDatabase, freshDataDir, skipUnlessStack, stackEnv, send, type Reply } from './stack.js';

/**
 * Two server processes as on two hosts (issue 50, item 3): each has a DATA_DIR of its own, and
 * they share nothing but the engines: the event log, the stored files and the chatbot's question
 * log in PostgreSQL (EVENTSTORE_URL, FILES_URL, QUESTION_LOG_URL: a database made for the run),
 * the read models in MongoDB, the topic
 * in Kafka, the chatbot's index in Elasticsearch and the sessions and jobs in Redis.
 */
t.setTimeout(600_000);

const PG_URL = process.env.PG_EVENTSTORE_URL;
const KEY = 'key_identity=ED&key_credential=ED-SECRET';
const EACH = 10;
const WRITERS = 6;

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
    {
      id: 2,
      email: 'admin@example.org',
      name: 'Ada',
      role: 'global_admin',
      password: 'admin-pass',
      api_keys: [{ identity: 'GA', credential: 'GA-SECRET' }],
    },
  ],
};
const ADMIN = 'key_identity=GA&key_credential=GA-SECRET';

/** The processes in a consumer group (the Kafka client id ends with the server's pid). */
async function groupMembers(brokers: string, groupId: string): Promise<number[]> {
  const admin = new Kafka({
    clientId: 'two-hosts-test',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return (groups[0]?.members ?? []).map((member) => Number(member.clientId.split('-').pop()));
  } finally {
    await admin.disconnect();
  }
}

const idOf = (reply: Reply) => (reply.body as { 'o:id': number })['o:id'];

/** The same URL on another server: each describes itself by its own address. */
function on(server: ServerProcess, url: string): string {
  const { pathname, search } = new URL(url);
  return `${server.baseUrl}${pathname}${search}`;
}

async function bytesAt(url: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

const skip =
  skipUnlessStack() || (PG_URL ? false : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)');

t.test('two servers on separate hosts: a DATA_DIR each, nothing shared but the engines', { skip }, async (t) => {
  const database = await freshDatabase(t, PG_URL as string, 'e2e_two_hosts');
  const shared = { EVENTSTORE_URL: database, FILES_URL: database, QUESTION_LOG_URL: database };
  const name = `e2e_${randomBytes(6).toString('hex')}`;
  // One call: t.testdir() empties its folder each time it is called.
  const testDir = t.testdir();
  const dirA = freshDataDir(testDir);
  const dirB = freshDataDir(testDir);
  const envA = { ...stackEnv(dirA, name), ...shared };
  const envB = { ...stackEnv(dirB, name), ...shared };

  const fixtureFile = join(testDir, 'fixture.json');
  writeFileSync(fixtureFile, JSON.stringify(fixture));
  const imported = await runCli('import.ts', [fixtureFile], envA);
  t.equal(imported.code, 0, `import on A exits 0: ${imported.stderr}`);

  const [a, b] = await Promise.all([startServer(envA, 120_000), startServer(envB, 120_000)]);
  t.teardown(() => Promise.all([a.stop('SIGKILL'), b.stop('SIGKILL')]));

  // A write on one is read on the other at once: the log and the read models are the engines'.
  const post = await send(a, 'POST', `/api/blog_posts?${KEY}`, { title: 'Written on A', status: 'published' });
  t.equal(post.status, 201, `A answers a create: ${JSON.stringify(post.body)}`);
  t.match(await send(b, 'GET', `/api/blog_posts/${idOf(post)}`), { status: 200, body: { 'o:title': 'Written on A' } });
  const item = await send(b, 'POST', `/api/items?${KEY}`, { 'o:title': 'Orrery', 'o:site': [{ 'o:id': 1 }] });
  t.equal(item.status, 201, `B answers a create: ${JSON.stringify(item.body)}`);
  t.match(await send(a, 'GET', `/api/items/${idOf(item)}`), { status: 200, body: { 'o:title': 'Orrery' } });
  t.match(
    await send(a, 'GET', '/api/items/100'),
    { status: 200, body: { 'o:title': 'Map of Lisbon' } },
    'the import on A is there',
  );

  // A session opened on A is good on B (Redis keys named after the MongoDB database, not DATA_DIR).
  const login = await fetch(`${a.baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'editor@example.org', password: 'editor-pass' }),
  });
  t.equal(login.status, 204, 'logged in on A');
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const bySession = await send(b, 'POST', '/api/blog_posts', { title: 'By session on B' }, { cookie });
  t.equal(bySession.status, 201, `the session opened on A writes on B: ${JSON.stringify(bySession.body)}`);

  // Files uploaded on A are served by B, byte for byte (FILES_URL).
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
  const assetForm = new FormData();
  assetForm.append('file[0]', new Blob([png], { type: 'image/png' }), 'map.png');
  const assetRes = await fetch(`${a.baseUrl}/api/asset-picker/assets`, {
    method: 'POST',
    headers: { cookie },
    body: assetForm,
  });
  t.equal(assetRes.status, 201, 'an asset uploaded on A');
  const asset = ((await assetRes.json()) as { asset: { canonical_url: string } }).asset;
  const assetOnB = await bytesAt(on(b, asset.canonical_url));
  t.equal(assetOnB.status, 200, 'B serves the asset');
  t.ok(assetOnB.bytes.equals(png), 'the bytes uploaded on A');

  const photo = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 20, g: 90, b: 160 } } })
    .jpeg()
    .toBuffer();
  const mediaForm = new FormData();
  mediaForm.append('data', JSON.stringify({ 'o:item': { 'o:id': 100 }, 'o:title': 'Photo' }));
  mediaForm.append('file[0]', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg');
  const mediaRes = await fetch(`${a.baseUrl}/api/media?${KEY}`, { method: 'POST', body: mediaForm });
  t.equal(mediaRes.status, 201, 'a media file uploaded on A');
  const media = (await mediaRes.json()) as { 'o:id': number; 'o:original_url': string };
  const originalOnB = await bytesAt(on(b, media['o:original_url']));
  t.equal(originalOnB.status, 200, "B serves the media's original");
  t.ok(originalOnB.bytes.equals(photo), 'the bytes uploaded on A');
  // Its derivatives are made by a job, on either server (BullMQ on the shared Redis).
  const thumbnails = await eventually(
    () => send(b, 'GET', `/api/media/${media['o:id']}`),
    (r) => Boolean((r.body as { 'o:thumbnail_urls'?: Record<string, string> })['o:thumbnail_urls']?.square),
    60_000,
  );
  const square = (thumbnails.body as { 'o:thumbnail_urls': Record<string, string> })['o:thumbnail_urls'].square;
  t.ok(square, 'its thumbnails are made');
  const [squareOnA, squareOnB] = await Promise.all([bytesAt(on(a, square)), bytesAt(on(b, square))]);
  t.equal(squareOnA.status, 200);
  t.ok(squareOnB.bytes.length > 0 && squareOnB.bytes.equals(squareOnA.bytes), 'both serve the one thumbnail made');

  // A question asked on A is listed on B (QUESTION_LOG_URL).
  const asked = await send(a, 'POST', '/chatbot/api/chat', { question: 'Who drew the map of Lisbon?', site_id: 1 });
  t.equal(asked.status, 200, `A answers a chat: ${JSON.stringify(asked.body)}`);
  const questions = await send(b, 'GET', `/api/chatbot/questions?${KEY}`);
  t.match(
    questions,
    { status: 200, body: [{ question: 'Who drew the map of Lisbon?' }] },
    'B lists the question A was asked',
  );

  // A backup asked of A (its job runs on either host) lives in the shared database: B copies it
  // out (npm run backup:download) byte for byte and deletes it, and then it is gone for A too.
  const backup = await send(a, 'POST', `/api/backups?${ADMIN}`, { include_api: false });
  t.equal(backup.status, 201, `A answers a backup: ${JSON.stringify(backup.body)}`);
  const record = backup.body as Record<string, unknown>;
  t.equal(record['o:storage'], 'postgresql', 'the archive is in the database');
  t.match(
    await send(b, 'GET', `/api/backups/${String(record['o:id'])}?${ADMIN}`),
    { status: 200, body: { 'o:path': record['o:path'], 'o:checksum': record['o:checksum'] } },
    'B shows the same record and o:path',
  );
  const copy = join(testDir, 'copied-on-b.zip');
  const copied = await runCli('backup-download.ts', [String(record['o:id']), copy], envB);
  t.equal(copied.code, 0, `backup:download on B exits 0: ${copied.stderr}`);
  t.equal(
    `sha256:${createHash('sha256').update(readFileSync(copy)).digest('hex')}`,
    record['o:checksum'],
    'B copies out the archive made for A',
  );
  t.equal((await send(b, 'DELETE', `/api/backups/${String(record['o:id'])}?${ADMIN}`)).status, 200, 'B deletes it');
  const gone = await runCli('backup-download.ts', [String(record['o:id']), join(testDir, 'gone.zip')], envA);
  t.not(gone.code, 0, `and A finds it gone: ${gone.stderr.trim()}`);

  // 20 concurrent creates of one slug, split over both: exactly one wins.
  const codes = await Promise.all(
    [a, b].flatMap((server, s) =>
      Array.from({ length: EACH }, (_, i) =>
        send(server, 'POST', `/api/blog_posts?${KEY}`, { title: `Post ${s * EACH + i}`, slug: 'shared' }).then(
          (r) => r.status,
        ),
      ),
    ),
  );
  t.equal(codes.filter((c) => c === 201).length, 1, `one 201 (${codes.join(' ')})`);
  t.equal(codes.filter((c) => c === 422).length, 2 * EACH - 1, 'the others 422');

  // Both fill the one MongoDB database through one consumer group (named after it, not after
  // DATA_DIR): the log's partition is folded by one of them at a time, never by both.
  const members = await groupMembers(
    envA.KAFKA_BROKERS,
    `${kafkaNamesFor({ dataDir: dirA, mongoUrl: envA.MONGO_URL }).groupPrefix}projections`,
  );
  t.same(members.sort(), [a.child.pid, b.child.pid].sort(), "both servers are members of the projections' group");

  // A dies (SIGKILL) with writes in flight: every write it acknowledged is read on B.
  const acknowledged: { id: number; title: string }[] = [];
  const refused: number[] = [];
  let stopped = false;
  const writer = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const title = `Kill test ${w}-${i}`;
      try {
        const r = await send(a, 'POST', `/api/blog_posts?${KEY}`, { title, status: 'published' });
        if (r.status === 201) acknowledged.push({ id: idOf(r), title });
        else refused.push(r.status);
      } catch {
        return; // the connection died with A: not acknowledged
      }
    }
  };
  const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  await eventually(
    async () => acknowledged.length,
    (n) => n >= 20,
    60_000,
  );
  await a.stop('SIGKILL');
  stopped = true;
  await writing;
  t.ok(acknowledged.length >= 20, `A acknowledged ${acknowledged.length} writes before it died`);
  t.same(refused, [], 'and refused none');
  const missing = await eventually(
    async () => {
      const absent: string[] = [];
      for (const { id, title } of acknowledged) {
        const r = await send(b, 'GET', `/api/blog_posts/${id}`);
        if (r.status !== 200 || (r.body as { 'o:title'?: string })['o:title'] !== title) absent.push(`${id} ${title}`);
      }
      return absent;
    },
    (absent) => absent.length === 0,
    60_000,
  );
  t.same(missing, [], 'every write A acknowledged is read on B');
  // B folds the log alone now (it takes the projections' partition over once A's Kafka session runs out).
  const after = await eventually(
    () => send(b, 'POST', `/api/blog_posts?${KEY}`, { title: 'After A died', status: 'published' }),
    (r) => r.status === 201,
    60_000,
  );
  t.equal(after.status, 201, `B answers writes after A died: ${JSON.stringify(after.body)}`);
  t.match(await send(b, 'GET', `/api/blog_posts/${idOf(after)}`), { status: 200, body: { 'o:title': 'After A died' } });

  // What is left in each DATA_DIR is local: the embedding cache and the images' local copies under
  // cache/ (docs/PRODUCTION.md, "What lives where"); the question log is in PostgreSQL.
  for (const dir of [dirA, dirB]) {
    const kept = readdirSync(dir).filter(
      // backups/: where a job stages an archive before it goes into the database, emptied after.
      (entry) =>
        !/^(cache|embeddings\.sqlite.*)$/.test(entry) &&
        !(entry === 'backups' && readdirSync(join(dir, entry)).length === 0),
    );
    t.same(kept, [], `nothing else in ${dir === dirA ? "A's" : "B's"} DATA_DIR`);
  }
});
