import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import t, { type Test } from 'tap';
import { REDIS_SERVER, startRedis } from '../../throwaway-redis.js';
import { freePort, importFixtureFile, startServer, type ServerProcess } from '../process.js';

/**
 * Two real servers on one DATA_DIR, each uploading photographs: every image gets its derivatives
 * recorded once (one MediaDerivativesMade in the log) and exactly its five stored files, whether
 * the jobs run on BullMQ (REDIS_URL: one job per file across both servers) or on each server's
 * own in-process queue (both try; the log records the first, the other's files are removed).
 */
t.setTimeout(180_000);

const KEY = 'key_identity=ED&key_credential=ED-SECRET';
const PHOTOS = 6;
const fixture = {
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
  items: [{ id: 1, title: 'Album' }],
};

async function upload(server: ServerProcess, n: number): Promise<number> {
  const photo = await sharp({
    create: { width: 600, height: 400, channels: 3, background: { r: n * 30, g: 90, b: 160 } },
  })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.append('data', JSON.stringify({ 'o:item': { 'o:id': 1 }, 'o:title': `Photo ${n}` }));
  form.append('file[0]', new Blob([photo], { type: 'image/jpeg' }), `photo-${n}.jpg`);
  const res = await fetch(`${server.baseUrl}/api/media?${KEY}`, { method: 'POST', body: form });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { 'o:id': number })['o:id'];
}

async function thumbnailsMade(server: ServerProcess, id: number): Promise<boolean> {
  const res = await fetch(`${server.baseUrl}/api/media/${id}`);
  const urls = ((await res.json()) as { 'o:thumbnail_urls': Record<string, string> })['o:thumbnail_urls'];
  return Boolean(urls.square);
}

async function derivativesOnceEach(t: Test, env: Record<string, string>): Promise<void> {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'images-two-servers');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const servers = await Promise.all([
    startServer({ DATA_DIR: dataDir, ...env }),
    startServer({ DATA_DIR: dataDir, ...env }),
  ]);
  t.teardown(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));
  const ids = await Promise.all(Array.from({ length: PHOTOS }, (_, n) => upload(servers[n % 2], n)));
  const deadline = Date.now() + 90_000;
  // Each server folds the shared log on its own: the other one may show a derivative a moment later.
  const bothShow = async (id: number) =>
    (await thumbnailsMade(servers[0], id)) && (await thumbnailsMade(servers[1], id));
  for (const id of ids) {
    while (!(await bothShow(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    t.ok(await bothShow(id), `media ${id}: both servers show its thumbnails`);
  }
  // Let a second attempt, if any, finish and record (or not) before counting.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const log = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  const made = log
    .prepare("SELECT stream_id, count(*) AS n FROM events WHERE type = 'MediaDerivativesMade' GROUP BY stream_id")
    .all() as { stream_id: string; n: number }[];
  log.close();
  t.same(
    made.map((row) => row.n),
    Array.from({ length: PHOTOS }, () => 1),
    'one MediaDerivativesMade per media',
  );
  const stored = readdirSync(join(dataDir, 'files', 'media'));
  t.equal(stored.length, PHOTOS * 5, 'five stored files per media: the original, three JPEGs and the pyramid');
}

t.test('embedded queues: each server tries, the log records each derivative once', async (t) => {
  await derivativesOnceEach(t, {});
});

t.test(
  'BullMQ: one job per file across both servers',
  { skip: process.env.REDIS_URL || REDIS_SERVER ? false : 'no REDIS_URL and no redis-server' },
  async (t) => {
    let url = process.env.REDIS_URL;
    if (!url) {
      const port = await freePort();
      const redis = await startRedis(port);
      t.teardown(() => redis.stop());
      url = `redis://127.0.0.1:${port}`;
    }
    await derivativesOnceEach(t, { REDIS_URL: url });
  },
);
