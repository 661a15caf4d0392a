import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import t, { type Test } from 'tap';
import { importFixtureFile, runCli, startServer, type ServerProcess } from '../process.js';
import { chatbotFixture } from '../../routes/chatbot/support.js';
import {
  eventually,
  freshDatabase,
  freshDataDir,
  searchBody,
  skipUnlessStack,
  stackEnv,
  type StackEnv,
} from './stack.js';

const PG_URL = process.env.PG_EVENTSTORE_URL;

/**
 * Issue 37, item 3, the operator's side on the production engines: a backup made by the BullMQ
 * worker, restored into an empty DATA_DIR and empty engines (a new MongoDB database, a new
 * Elasticsearch index, and new Kafka topic and groups, which follow the new DATA_DIR and
 * database), then `npm run rebuild` and `npm run reindex` on that deployment. Issue 50, item 4:
 * the same with the log and the stored files in PostgreSQL, restored into an empty database.
 */
const fixture = {
  ...chatbotFixture,
  users: [
    {
      id: 1,
      email: 'admin@example.org',
      name: 'Ada',
      role: 'global_admin',
      password: 'admin-pass',
      api_keys: [{ identity: 'AD', credential: 'AD-SECRET' }],
    },
  ],
  blog: { settings: { comments_enabled: true }, categories: [], posts: [], comments: [] },
};
const KEY = 'key_identity=AD&key_credential=AD-SECRET';

// Three server starts and four CLI runs, each compiling the app with tsx.
t.setTimeout(600_000);

interface Answer {
  status: number;
  body: unknown;
}

function client(server: ServerProcess) {
  const call = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const send = (method: string, path: string, body: object = {}) =>
    call(`${path}${path.includes('?') ? '&' : '?'}${KEY}`, { method, body: JSON.stringify(body) });
  const search = async (query: string) =>
    searchBody(await call('/chatbot/api/search', { method: 'POST', body: JSON.stringify({ query }) }));
  return { call, send, search };
}

/** What the restored, rebuilt and reindexed deployment must answer as the original did. */
async function snapshot(server: ServerProcess): Promise<Record<string, Answer>> {
  const { call } = client(server);
  const paths = [
    `/api/blog_posts?${KEY}`,
    `/api/blog_comments?${KEY}`,
    `/api/items?${KEY}`,
    `/api/media?${KEY}`,
    `/api/site_pages?${KEY}`,
    '/api/blog/posts',
    `/api/blog_posts?search=lighthouse&${KEY}`,
  ];
  const out: Record<string, Answer> = {};
  for (const path of paths) out[path] = await call(path);
  return out;
}

async function sessionCookie(server: ServerProcess): Promise<string> {
  const login = await fetch(`${server.baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.org', password: 'admin-pass' }),
  });
  if (login.status !== 204) throw new Error(`login: ${login.status}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function pageVersions(server: ServerProcess): Promise<unknown> {
  const cookie = await sessionCookie(server);
  return (await fetch(`${server.baseUrl}/api/page-versioning/5/versions`, { headers: { cookie } })).json();
}

/** An asset file the backup must carry: its canonical URL (with the deployment's BASE_URL). */
async function uploadAsset(server: ServerProcess, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file[0]', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'map.png');
  const res = await fetch(`${server.baseUrl}/api/asset-picker/assets`, {
    method: 'POST',
    headers: { cookie: await sessionCookie(server) },
    body: form,
  });
  if (res.status !== 201) throw new Error(`asset upload: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { asset: { canonical_url: string } }).asset.canonical_url;
}

/** The bytes a server answers for a URL of the deployment (its @ids carry BASE_URL, not the server's port). */
async function bytesOn(server: ServerProcess, url: string): Promise<{ status: number; bytes: Buffer }> {
  const { pathname, search } = new URL(url);
  const res = await fetch(`${server.baseUrl}${pathname}${search}`);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The chatbot finds the item written through the API, first, and the imported violin. */
async function searchFinds(t: Test, server: ServerProcess, itemId: number, what: string): Promise<void> {
  const { search } = client(server);
  const found = await eventually(
    () => search('brass astrolabe Toledo'),
    (b) => b.results[0]?.url === `/item/${itemId}`,
  );
  t.equal(
    found.results[0]?.url,
    `/item/${itemId}`,
    `${what}: the chatbot finds the new item first (${found.results.map((r) => r.url).join(' ')}${found.refused ?? ''})`,
  );
  const violin = await eventually(
    () => search('Stradivari violin'),
    (b) => b.results[0]?.url === '/item/101',
  );
  t.equal(violin.results[0]?.url, '/item/101', `${what}: and the imported one`);
  t.notOk(
    violin.results.some((r) => r.url === '/item/103'),
    `${what}: nothing private`,
  );
}

async function chunksIn(env: StackEnv): Promise<number> {
  await fetch(`${env.ELASTICSEARCH_URL}/${env.ELASTICSEARCH_INDEX}/_refresh`, { method: 'POST' });
  const res = await fetch(`${env.ELASTICSEARCH_URL}/${env.ELASTICSEARCH_INDEX}/_count`);
  return res.status === 200 ? ((await res.json()) as { count: number }).count : 0;
}

/** Where a deployment keeps its log and files besides DATA_DIR: nothing (SQLite and DATA_DIR/files), or a PostgreSQL database. */
type Places = (t: Test) => Promise<Record<string, string>>;

/**
 * A backup of a deployment made by the BullMQ worker, restored into a new one (a new DATA_DIR,
 * MongoDB database and Elasticsearch index, and new `places`), which answers as the original did,
 * then after `npm run rebuild` and `npm run reindex`.
 */
async function lifecycle(t: Test, places: Places): Promise<void> {
  // One call: t.testdir() empties its folder each time it is called.
  const testDir = t.testdir();
  // One BASE_URL for the three servers, on their different ports: answers carry it in their @ids.
  const deployment = async (env: StackEnv) => ({
    ...env,
    ...(await places(t)),
    BASE_URL: 'http://lifecycle.test',
    CHATBOT_RATE_LIMIT: '1000',
  });
  const original = await deployment(stackEnv(freshDataDir(testDir)));
  const began = Date.now();
  const phase = (what: string) => t.comment(`${what} at ${Math.round((Date.now() - began) / 1000)} s`);
  const imported = await importFixtureFile(original.DATA_DIR, fixture, 'production-lifecycle', original);
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const first = await startServer(original, 120_000);
  t.teardown(() => first.stop('SIGKILL'));
  const { send, call } = client(first);

  // Content the backup must carry: a post, a comment approved, an item, a page edited and reverted.
  const post = await send('POST', '/api/blog_posts', {
    title: 'Harbour lights',
    content: '<p>The lighthouse keeper.</p>',
    status: 'published',
  });
  t.equal(post.status, 201, `post: ${JSON.stringify(post.body)}`);
  const postId = (post.body as { 'o:id': number })['o:id'];
  const comment = await call('/api/blog_comments', {
    method: 'POST',
    body: JSON.stringify({ post_id: postId, author_name: 'Vi', author_email: 'vi@example.org', body: 'Lovely' }),
  });
  t.equal(comment.status, 201);
  t.equal(
    (
      await send('PATCH', `/api/blog_comments/${(comment.body as { 'o:id': number })['o:id']}`, {
        status: 'approved',
      })
    ).status,
    200,
  );
  const item = await send('POST', '/api/items', {
    'o:title': 'Astrolabe',
    'o:description': 'A brass astrolabe from Toledo for reading the stars.',
    'o:site': [{ 'o:id': 1 }],
  });
  t.equal(item.status, 201, `item: ${JSON.stringify(item.body)}`);
  const itemId = (item.body as { 'o:id': number })['o:id'];
  t.equal((await send('PATCH', '/api/site_pages/5', { 'o:title': 'Opening hours' })).status, 200);
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
  const asset = await uploadAsset(first, png);
  await searchFinds(t, first, itemId, 'before the backup');
  const before = await snapshot(first);
  const versionsBefore = await pageVersions(first);

  const backup = await send('POST', '/api/backups');
  t.equal(backup.status, 201, `backup: ${JSON.stringify(backup.body)}`);
  t.equal((backup.body as Record<string, unknown>)['o:status'], 'complete');
  const record = backup.body as Record<string, unknown>;
  if ('FILES_URL' in original) {
    t.equal(record['o:storage'], 'postgresql', 'with FILES_URL the archive is in the database');
    t.match(
      record['o:path'],
      /^postgresql:\/\/[^@/]+\/e2e_lifecycle_[0-9a-f]+\?schema=public#backups\/backup-\d+-\d{8}-\d{6}\.zip$/,
    );
    const staging = join(original.DATA_DIR, 'backups');
    t.same(existsSync(staging) ? readdirSync(staging) : [], [], 'nothing of it on the disk of the host that made it');
  } else t.ok(existsSync(record['o:path'] as string), 'the archive is written');
  // Copied out as an operator does, from the deployment's store, checked against o:checksum.
  const archive = join(testDir, 'downloaded.zip');
  const download = await runCli('backup-download.ts', [String(record['o:id']), archive], original);
  t.equal(download.code, 0, `backup:download exits 0: ${download.stderr}`);
  t.equal(
    `sha256:${createHash('sha256').update(readFileSync(archive)).digest('hex')}`,
    record['o:checksum'],
    'the copy is the archive the backup made',
  );
  const health = (await call('/health')).body as {
    ports: { job_queue: { adapter: string } };
    jobs: { queues: { queue: string }[] | null };
  };
  t.equal(health.ports.job_queue.adapter, 'production');
  t.ok(
    health.jobs.queues?.some((q) => q.queue === 'backups'),
    'the archive was made by a job on the BullMQ queue',
  );
  await first.stop();
  phase('backed up');

  // Restore: a new DATA_DIR, so a new Kafka topic and groups; a new MongoDB database and Elasticsearch index.
  const restored = await deployment(stackEnv(freshDataDir(testDir)));
  t.equal(await chunksIn(restored), 0, 'the new index is empty');
  const restore = await runCli('restore.ts', [archive], restored);
  t.equal(restore.code, 0, `restore exits 0: ${restore.stderr}`);
  t.match(restore.stdout, /Restored \d+ events/);
  // Its start's log says how it found the read models: a failure below shows it.
  const second = await startServer({ ...restored, LOG_LEVEL: 'info' }, 120_000);
  t.teardown(() => second.stop('SIGKILL'));
  const afterRestore = await snapshot(second);
  t.comment(
    second
      .stdout()
      .split('\n')
      .find((line) => line.includes('Read models ready'))
      ?.slice(0, 300) ?? 'no "Read models ready" line',
  );
  for (const path of Object.keys(before))
    t.same(afterRestore[path], before[path], `restored: GET ${path} answers the same`);
  t.same(await pageVersions(second), versionsBefore, 'restored: the page versions');
  const assetRestored = await bytesOn(second, asset);
  t.equal(assetRestored.status, 200, 'restored: the asset is served');
  t.ok(assetRestored.bytes.equals(png), 'restored: the bytes uploaded');
  await searchFinds(t, second, itemId, 'restored');
  t.ok((await chunksIn(restored)) > 0, `restored: the chunks are in the new index ${restored.ELASTICSEARCH_INDEX}`);
  await second.stop();
  phase('restored and read');

  // npm run rebuild, then npm run reindex, on that deployment; the server reads at once after them.
  const rebuild = await runCli('rebuild.ts', [], restored);
  t.equal(rebuild.code, 0, `rebuild exits 0: ${rebuild.stderr}`);
  t.match(rebuild.stdout, /Rebuilt read models from \d+ events/);
  const reindex = await runCli('reindex.ts', [], restored);
  t.equal(reindex.code, 0, `reindex exits 0: ${reindex.stderr}`);
  t.match(reindex.stdout, /Reindexed \d+ public resources/);
  phase('rebuilt and reindexed');
  const third = await startServer(restored, 120_000);
  t.teardown(() => third.stop('SIGKILL'));
  const afterRebuild = await snapshot(third);
  for (const path of Object.keys(before))
    t.same(afterRebuild[path], before[path], `rebuilt: GET ${path} answers the same`);
  t.same(await pageVersions(third), versionsBefore, 'rebuilt: the page versions');
  t.ok((await bytesOn(third, asset)).bytes.equals(png), 'rebuilt: the asset is served');
  const { search } = client(third);
  const right = await search('brass astrolabe Toledo');
  t.equal(right.results[0]?.url, `/item/${itemId}`, 'reindexed: the chatbot finds the item at once, without waiting');
  await searchFinds(t, third, itemId, 'reindexed');
}

// One run, to keep CI's time: with PostgreSQL (as CI has it) the log, files and questions are in a
// database of their own, restored into an empty one (issue 50, item 4); without, DATA_DIR's.
t.test(
  PG_URL
    ? 'backup through BullMQ, restore into empty engines and an empty PostgreSQL database, rebuild and reindex'
    : 'backup through BullMQ, restore into empty engines, rebuild and reindex, on the production engines',
  { skip: skipUnlessStack() },
  (t) =>
    lifecycle(t, async (t): Promise<Record<string, string>> => {
      if (!PG_URL) return {};
      const database = await freshDatabase(t, PG_URL, 'e2e_lifecycle');
      return { EVENTSTORE_URL: database, FILES_URL: database, QUESTION_LOG_URL: database };
    }),
);
