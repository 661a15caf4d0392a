import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { loadConfig } from '../../../infra/config.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { LEFTOVER_AGE_MS } from '../../../infra/file-storage/partial-uploads.js';
import { CHUNK_BYTES, PostgresFileAreas } from '../../../infra/file-storage/postgres.js';
import { createFileAreas } from '../../../infra/file-storage/select.js';
import { createInfrastructure } from '../../../infra/select.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../../helper.js';
import { pathOf, PNG, uploaded } from '../../routes/assets/support.js';
import { derivativesMade, photograph, uploadMedia } from '../../routes/platform/media-support.js';
import { dropSchema, freshSchema } from '../event-store/postgres-schemas.js';
import { patterned, readAll } from './bytes.js';

/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const URL = process.env.PG_EVENTSTORE_URL;
const skip = URL ? false : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)';
const HOST = encodeURIComponent(hostname());

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

/** A schema of the test's own, dropped after it, and `count` stores on it: servers sharing one database. */
function servers(t: Context, count: number, options: { removedKeptMs?: number } = {}): PostgresFileAreas[] {
  const url = URL ?? '';
  const schema = freshSchema();
  const dir = testDir(t);
  const made = Array.from(
    { length: count },
    (_, i) => new PostgresFileAreas(url, { schema, copiesDir: join(dir, `server-${i}`), ...options }),
  );
  t.teardown(async () => {
    for (const areas of made) await areas.close();
    await dropSchema(url, schema);
  });
  return made;
}

const dirs = new WeakMap<Context, string>();

/** The test's directory, made once: tap's testdir() empties it again on each call. */
function testDir(t: Context): string {
  let dir = dirs.get(t);
  if (!dir) {
    dir = t.testdir();
    dirs.set(t, dir);
  }
  return dir;
}

async function rows(areas: PostgresFileAreas, sql: string, values: unknown[] = []): Promise<unknown[]> {
  return (await areas.query(sql, values)).rows;
}

/** A pid no process has: a child that has exited (its pid is not reused within the test). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

t.test('two servers on one database see each other’s files, and not each other’s uploads', { skip }, async (t) => {
  const [one, two] = servers(t, 2);
  const content = patterned(2 * CHUNK_BYTES + 10);
  const pending = await one.area('media').receive(Readable.from([content]), 'tif');
  t.equal(await two.area('media').stat(pending.storedName), null, 'an upload in progress is seen by neither');
  await pending.commit();
  t.same(await two.area('media').stat(pending.storedName), { size: content.length });
  t.ok((await readAll(two.area('media').openRead(pending.storedName))).equals(content), 'read by the other server');
  t.same(
    (await two.area('media').list()).map((f) => f.storedName),
    [pending.storedName],
  );
  t.same(await two.area('assets').list(), [], 'each area has its own files');
  t.equal(await two.area('assets').stat(pending.storedName), null);

  const copy = await two.area('media').localPath(pending.storedName);
  t.ok(copy?.startsWith(join(testDir(t), 'server-1')), 'a local copy on the server that asked');
  t.ok(existsSync(copy ?? ''));
  await one.area('media').remove(pending.storedName);
  t.equal(await two.area('media').stat(pending.storedName), null, 'removed for both');
  t.equal(await two.area('media').localPath(pending.storedName), null);
  t.notOk(existsSync(copy ?? ''), 'the other server drops its copy once it finds the file removed');
});

t.test('servers starting together make the tables once; chunks are stored uncompressed', { skip }, async (t) => {
  const all = servers(t, 4);
  await Promise.all(all.map((areas) => areas.schemaReady()));
  for (const areas of all) await areas.check();
  t.same(
    await rows(all[0], `SELECT attstorage FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'data'`, [
      all[0].chunks,
    ]),
    [{ attstorage: 'e' }],
    'STORAGE EXTERNAL',
  );
});

t.test('a file is cut into rows of CHUNK_BYTES, the last one shorter', { skip }, async (t) => {
  const [areas] = servers(t, 1);
  const content = patterned(3 * CHUNK_BYTES + 777);
  const source = Readable.from(
    (function* () {
      // Pieces that do not line up with the rows.
      for (let at = 0; at < content.length; at += 100_003) yield content.subarray(at, at + 100_003);
    })(),
  );
  const pending = await areas.area('assets').receive(source, 'bin');
  await pending.commit();
  t.same(
    await rows(areas, `SELECT n, length(data) AS bytes FROM ${areas.chunks} WHERE name = $1 ORDER BY n`, [
      pending.storedName,
    ]),
    [
      { n: 0, bytes: CHUNK_BYTES },
      { n: 1, bytes: CHUNK_BYTES },
      { n: 2, bytes: CHUNK_BYTES },
      { n: 3, bytes: 777 },
    ],
  );
});

t.test('a range reads only the rows it covers', { skip }, async (t) => {
  const [areas] = servers(t, 1);
  const content = patterned(4 * CHUNK_BYTES);
  const { storedName } = await (async () => {
    const pending = await areas.area('media').receive(Readable.from([content]), 'tif');
    await pending.commit();
    return pending;
  })();
  // The rows before the range are gone: a read that fetched them would fail.
  await areas.query(`DELETE FROM ${areas.chunks} WHERE name = $1 AND n < 2`, [storedName]);
  const start = 2 * CHUNK_BYTES + 5;
  const end = 3 * CHUNK_BYTES + 9;
  const bytes = await readAll(areas.area('media').openRead(storedName, { start, end }));
  t.ok(bytes.equals(content.subarray(start, end + 1)), 'the range, from its own rows');
  await t.rejects(readAll(areas.area('media').openRead(storedName)), { code: 'ENOENT' }, 'the whole file is not there');
});

t.test('a read under way finishes across a removal; the rows go once their time is up', { skip }, async (t) => {
  const [kept] = servers(t, 1);
  const content = patterned(12 * CHUNK_BYTES);
  const pending = await kept.area('assets').receive(Readable.from([content]), 'bin');
  await pending.commit();
  const reader = kept.area('assets').openRead(pending.storedName);
  const parts: Buffer[] = [];
  const first = await new Promise<Buffer>((resolve) => reader.once('data', resolve));
  parts.push(first);
  reader.pause();
  await kept.area('assets').remove(pending.storedName);
  t.equal(await kept.area('assets').stat(pending.storedName), null, 'removed for new readers at once');
  parts.push(await readAll(reader));
  t.ok(Buffer.concat(parts).equals(content), 'the reader under way got every byte');
  const chunkRows = async () =>
    (await rows(kept, `SELECT n FROM ${kept.chunks} WHERE name = $1`, [pending.storedName])).length;
  t.equal(await chunkRows(), 12, 'its rows are kept for a while');
  const [short] = servers(t, 1, { removedKeptMs: 0 });
  const other = await short.area('assets').receive(Readable.from([content.subarray(0, 10)]), 'bin');
  await other.commit();
  await short.area('assets').remove(other.storedName);
  const left = await rows(short, `SELECT name FROM ${short.files}`);
  t.same(left, [], 'with no time to keep them, a removal deletes every removed file and its rows');
});

t.test('a start removes the uploads no live process owns, and partial local copies', { skip }, async (t) => {
  const [areas] = servers(t, 1);
  const storage = areas.area('assets');
  // Tables made, and an upload of this very process in flight since after it started.
  const live = await storage.receive(Readable.from([Buffer.from('live')]), 'txt');
  const dead = await deadPid();
  const now = Date.now();
  const insert = async (upload: string, modifiedAt: number) => {
    const name = `${randomUUID()}.txt`;
    await areas.query(
      `INSERT INTO ${areas.files} (area, name, chunk_bytes, upload, modified_at) VALUES ('assets', $1, $2, $3, $4)`,
      [name, CHUNK_BYTES, upload, modifiedAt],
    );
    await areas.query(`INSERT INTO ${areas.chunks} (area, name, n, data) VALUES ('assets', $1, 0, $2)`, [
      name,
      Buffer.from('bytes'),
    ]);
    return upload;
  };
  const deadUpload = await insert(`${HOST}@${dead}@${randomUUID()}.part`, now - 1000);
  const oldForeign = await insert(`elsewhere@123@${randomUUID()}.part`, now - LEFTOVER_AGE_MS - 60_000);
  const recentForeign = await insert(`elsewhere@123@${randomUUID()}.part`, now - 60_000);
  const copies = join(testDir(t), 'server-0', 'tmp');
  mkdirSync(copies, { recursive: true });
  const deadCopy = `${HOST}@${dead}@${randomUUID()}.part`;
  writeFileSync(join(copies, deadCopy), 'half a copy');

  const removed = await areas.removeLeftoverUploads({ startedAt: now - 5000, now });
  t.same(removed.sort(), [deadUpload, oldForeign, deadCopy].sort());
  t.same(
    (await rows(areas, `SELECT upload FROM ${areas.files} WHERE upload IS NOT NULL ORDER BY upload`)).length,
    2,
    'the live upload and the recent one of another host stay',
  );
  t.same(readdirSync(copies), []);
  t.equal(
    (await rows(areas, `SELECT n FROM ${areas.chunks}`)).length,
    2,
    'the leftovers’ rows went with them; the live upload’s and the recent one’s stay',
  );
  t.ok(recentForeign);
  await live.commit();
  t.same(await storage.stat(live.storedName), { size: 4 });
});

t.test('an unreachable server is DependencyUnavailableError, and stops a start naming FILES_URL', async (t) => {
  const url = 'postgres://postgres@127.0.0.1:1/test';
  const areas = new PostgresFileAreas(url, { copiesDir: t.testdir() });
  t.teardown(() => areas.close());
  const error = await areas
    .area('assets')
    .stat('0b7a4c1e-0d1f-4f2a-9c3b-1a2b3c4d5e6f.png')
    .catch((reason: unknown) => reason);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal(error instanceof DependencyUnavailableError && error.dependency, 'file storage');
  await t.rejects(
    createInfrastructure(loadConfig({ DATA_DIR: t.testdir(), FILES_URL: url }), pino({ level: 'silent' })),
    { message: /file storage is unavailable at 127\.0\.0\.1:1\. Check FILES_URL/ },
  );
});

t.test('FILES_URL picks the PostgreSQL adapter, making its tables at once; unset, DATA_DIR/files', async (t) => {
  const dir = t.testdir();
  const local = await createFileAreas(loadConfig({ DATA_DIR: dir }));
  t.equal(local.kind, 'local');
  // An address nothing answers at: the adapter is picked, and its tables are asked for at once.
  await t.rejects(createFileAreas(loadConfig({ DATA_DIR: dir, FILES_URL: 'postgres://postgres@127.0.0.1:1/test' })), {
    name: 'DependencyUnavailableError',
    dependency: 'file storage',
  });
});

t.test(
  'an app on PostgreSQL files: assets, media, derivatives and tiles; nothing in DATA_DIR/files',
  { skip },
  async (t) => {
    const [files] = servers(t, 1);
    const { app, runtime, config } = await buildTestApp(t, {
      fixture: { users: ROLE_USERS, items: [{ id: 100, title: 'Item' }] },
      infrastructure: { files },
    });
    const editor = await sessionFor(app, 'editor');
    const asset = await uploaded(app, editor, 'map.png', PNG);
    const served = await app.inject({
      method: 'GET',
      url: pathOf(asset.canonical_url),
      headers: { range: 'bytes=1-3' },
    });
    t.equal(served.statusCode, 206);
    t.same(served.rawPayload, PNG.subarray(1, 4), 'canonical_url answers a range from the database');

    const res = await uploadMedia(
      app,
      keyFor('editor'),
      { 'o:item': { 'o:id': 100 } },
      {
        filename: 'photo.jpg',
        content: await photograph(400, 300),
      },
    );
    t.equal(res.statusCode, 201, res.body);
    const id = Number(json<Record<string, unknown>>(res)['o:id']);
    await derivativesMade(runtime);
    t.equal((await files.area('media').list()).length, 5, 'the original, three JPEGs and the pyramid');
    const thumb = await app.inject({ method: 'GET', url: `/files/medium/${id}.jpg` });
    t.equal(thumb.statusCode, 200);
    const tile = await app.inject({ method: 'GET', url: `/iiif/3/image/${id}/0,0,200,150/100,/0/default.jpg` });
    t.equal(tile.statusCode, 200, 'tiles rendered from the local copy');
    t.notOk(existsSync(join(config.dataDir, 'files', 'media')), 'no media file on the local disk');
    t.notOk(existsSync(join(config.dataDir, 'files', 'assets')), 'no asset file on the local disk');
    const deleted = await app.inject({ method: 'DELETE', url: `/api/media/${id}?${keyFor('editor')}` });
    t.equal(deleted.statusCode, 200);
    await runtime.projections.catchUp();
    t.same(await files.area('media').list(), [], 'a deleted media’s files are removed from the database');
  },
);
