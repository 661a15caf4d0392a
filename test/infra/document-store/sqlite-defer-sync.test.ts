import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { textIndexFile } from '../../../infra/document-store/sqlite-tables.js';
import { markUnsynced, unsyncedMarkerFile } from '../../../infra/document-store/unsynced-marker.js';

interface Post {
  _id: number;
  title: string;
  [key: string]: unknown;
}

/** A read-model file holding two posts (one text-indexed collection), closed. */
async function filledFile(t: Test): Promise<string> {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = new SqliteDocumentStore(file, { commitIntervalMs: 1 });
  const posts = store.collection<Post>('posts', { textSearch: { fields: ['title'] } });
  await posts.putMany([
    { _id: 1, title: 'The old town' },
    { _id: 2, title: 'A new harbour' },
  ]);
  await store.settled();
  await store.close();
  return file;
}

/** The connection's synchronous setting: private to the store, read here to see what its commits wait for. */
function synchronousOf(store: SqliteDocumentStore): number {
  return (store as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true }) as number;
}

/** A marker as a deferSync of another process left it, with fields changed. */
function leaveMarker(file: string, changes: Record<string, unknown>): void {
  markUnsynced(file);
  const marker = unsyncedMarkerFile(file);
  writeFileSync(marker, JSON.stringify({ ...(JSON.parse(readFileSync(marker, 'utf8')) as object), ...changes }));
}

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid;
}

async function titles(file: string): Promise<string[]> {
  const store = new SqliteDocumentStore(file);
  try {
    const posts = store.collection<Post>('posts', { textSearch: { fields: ['title'] } });
    return (await posts.find({}, { sort: { _id: 1 } })).map((p) => p.title);
  } finally {
    await store.close();
  }
}

t.test(
  'deferSync: commits skip the fsync while the work runs, under a marker; then the files are synced and the marker goes',
  async (t) => {
    const file = join(t.testdir(), 'read-models.sqlite');
    const store = new SqliteDocumentStore(file, { commitIntervalMs: 1 });
    t.teardown(() => store.close());
    const posts = store.collection<Post>('posts', { textSearch: { fields: ['title'] } });
    t.equal(synchronousOf(store), 1, 'NORMAL before');
    const answer = await store.deferSync(async () => {
      t.ok(existsSync(unsyncedMarkerFile(file)), 'the marker stands meanwhile');
      t.equal(synchronousOf(store), 0, 'OFF meanwhile');
      await posts.putMany([
        { _id: 1, title: 'The old town' },
        { _id: 2, title: 'A new harbour' },
      ]);
      return 'done';
    });
    t.equal(answer, 'done', "the work's answer");
    t.notOk(existsSync(unsyncedMarkerFile(file)), 'the marker is gone');
    t.equal(synchronousOf(store), 1, 'NORMAL again');
    const settled = new Database(textIndexFile(file), { readonly: true });
    t.teardown(() => settled.close());
    t.equal(
      settled.prepare('SELECT count(*) FROM docs_posts__text').pluck().get() as number,
      2,
      'the text index caught up before it ended',
    );
    await store.close();
    t.same(await titles(file), ['The old town', 'A new harbour'], 'the writes are there after reopening');
  },
);

t.test('deferSync: work that throws still ends with the files synced and no marker; what it wrote stays', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = new SqliteDocumentStore(file, { commitIntervalMs: 1 });
  const posts = store.collection<Post>('posts', { textSearch: { fields: ['title'] } });
  await t.rejects(
    store.deferSync(async () => {
      await posts.put({ _id: 1, title: 'The old town' });
      throw new Error('replay failed');
    }),
    /replay failed/,
  );
  t.notOk(existsSync(unsyncedMarkerFile(file)), 'no marker');
  t.equal(synchronousOf(store), 1, 'NORMAL again');
  await store.close();
  t.same(await titles(file), ['The old town']);
});

t.test('a store opened while a live process defers syncs refuses, naming the process', async (t) => {
  const file = await filledFile(t);
  markUnsynced(file);
  t.throws(() => new SqliteDocumentStore(file), { message: new RegExp(`being rebuilt by process ${process.pid}`) });
  t.ok(existsSync(unsyncedMarkerFile(file)), 'the marker stays');
});

t.test(
  'after a crash of the deferring process on this boot, the files are synced and kept: nothing is replayed',
  async (t) => {
    const file = await filledFile(t);
    leaveMarker(file, { pid: deadPid() });
    t.same(await titles(file), ['The old town', 'A new harbour'], 'the documents are kept');
    t.notOk(existsSync(unsyncedMarkerFile(file)), 'the marker is gone');
    const store = new SqliteDocumentStore(file);
    t.teardown(() => store.close());
    t.equal(
      await store.collection<Post>('posts', { textSearch: { fields: ['title'] } }).count({}, { text: 'harbour' }),
      1,
      'the text index too',
    );
  },
);

t.test(
  'after the machine went down (another boot), the read-model files are removed: the next start replays the log',
  async (t) => {
    const file = await filledFile(t);
    leaveMarker(file, { pid: deadPid(), bootId: 'a-boot-before-this-one' });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    t.teardown(() => process.off('warning', onWarning));
    t.same(await titles(file), [], 'the store opens empty');
    await new Promise((resolve) => setImmediate(resolve));
    t.match(warnings, [/never finished.*replayed from the log/], 'and says why');
    t.notOk(existsSync(unsyncedMarkerFile(file)), 'the marker is gone');
  },
);

t.test('a marker that cannot be read (torn) is taken as the worst case', async (t) => {
  const file = await filledFile(t);
  writeFileSync(unsyncedMarkerFile(file), '{"pid": 12');
  t.same(await titles(file), [], 'the files are removed');
});

t.test("a marker another host left is not this process's to judge: the open refuses and says what to do", async (t) => {
  const file = await filledFile(t);
  leaveMarker(file, { host: 'another-host.example' });
  t.throws(() => new SqliteDocumentStore(file), {
    message: /process \d+ on host another-host\.example.*If it no longer runs, remove/,
  });
});

t.test('a pid reused by another process is not the deferring one', async (t) => {
  const file = await filledFile(t);
  // This process is alive, but it started at another time than the marker says.
  leaveMarker(file, { started: -1 });
  t.same(await titles(file), ['The old town', 'A new harbour'], 'taken as a crash on this boot: synced and kept');
});
