import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t from 'tap';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { sharedSqliteDocumentStore } from '../../../infra/document-store/shared-sqlite.js';
import { UnsupportedQueryError } from '../../../infra/document-store/sql-paths.js';

/** What another process would see: the documents committed to the file. */
function committedIds(file: string, collection: string): unknown[] {
  const reader = new Database(file, { readonly: true });
  try {
    return reader.prepare(`SELECT _id FROM "docs_${collection}" ORDER BY _id`).pluck().all();
  } finally {
    reader.close();
  }
}

t.test('the writes of a batch commit together, even when it outlasts the commit interval', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = new SqliteDocumentStore(file, { commitIntervalMs: 5 });
  t.teardown(() => store.close());
  const docs = store.collection<{ _id: string }>('docs');
  await docs.put({ _id: 'before' });
  await sleep(30);
  t.same(committedIds(file, 'docs'), ['before'], 'a write outside a batch commits within the interval');

  let seenInside: unknown[] = [];
  await store.batch(async () => {
    await docs.put({ _id: 'a' });
    await sleep(40);
    seenInside = committedIds(file, 'docs');
    await store.collection<{ _id: string; position: number }>('_checkpoints').put({ _id: 'p', position: 2 });
  });
  t.same(seenInside, ['before'], 'nothing of the batch was committed while it ran');
  await sleep(30);
  t.same(committedIds(file, 'docs'), ['a', 'before'], 'the batch committed when it ended');
  t.same(committedIds(file, '_checkpoints'), ['p'], 'with its checkpoint');
});

t.test('a batch that throws still commits what it wrote, and later writes commit again', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = sharedSqliteDocumentStore(file);
  t.teardown(() => store.close());
  t.ok(store.batch, 'the shared SQLite store offers batch()');
  const docs = store.collection<{ _id: string }>('docs');
  await t.rejects(
    store.batch!(async () => {
      await docs.put({ _id: 'kept' });
      await sleep(80);
      throw new Error('handler failed');
    }),
    /handler failed/,
  );
  await sleep(80);
  t.same(committedIds(file, 'docs'), ['kept'], 'no rollback: projections are idempotent');
  await docs.put({ _id: 'later' });
  await sleep(80);
  t.same(committedIds(file, 'docs'), ['kept', 'later'], 'the commit timer works after the batch');
});

interface Item {
  _id: number;
  title: string;
  media_ids: number[];
  site?: number;
  [key: string]: unknown;
}

t.test("in a batch, an event reads what an earlier one wrote, and queries see the batch's writes", async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
  t.teardown(() => store.close());
  const items = store.collection<Item>('items', { indexes: ['site'], textSearch: { fields: ['title'] } });
  await items.put({ _id: 1, title: 'Committed map', media_ids: [], site: 1 });
  await store.batch(async () => {
    await items.put({ _id: 2, title: 'Harbour map', media_ids: [], site: 1 });
    t.same(
      await items.findOne({ _id: 2 }),
      { _id: 2, title: 'Harbour map', media_ids: [], site: 1 },
      'a key read finds the write of the batch',
    );
    t.equal(await items.updateOne({ _id: 2 }, { $addToSet: { media_ids: 7 } }), 1, 'an update by key finds it too');
    t.equal(await items.updateOne({ _id: 1 }, { $addToSet: { media_ids: 8 } }), 1, 'and a document of the table');
    t.equal(await items.updateOne({ _id: 3 }, { $set: { title: 'x' } }), 0, 'a missing one is no match');
    t.same((await items.findOne({ _id: 2 }))?.media_ids, [7]);
    t.equal(await items.count({ site: 1 }), 2, "a count by another field sees the batch's documents");
    t.same(
      (await items.find({ media_ids: 8 })).map((doc) => doc._id),
      [1],
      "a find sees the batch's update of a stored document",
    );
    t.same(
      (await items.find({}, { text: 'harbour' })).map((doc) => doc._id),
      [2],
      "a text search sees the batch's documents",
    );
    t.equal(await items.deleteOne({ _id: 2 }), 1);
    t.equal(await items.findOne({ _id: 2 }), null, 'a deleted document is gone for the batch');
    t.equal(await items.deleteOne({ _id: 2 }), 0, 'and cannot be deleted twice');
    t.equal(await items.count(), 1, 'a count after the delete');
    t.same(await items.find({}, { text: 'map' }), [{ _id: 1, title: 'Committed map', media_ids: [8], site: 1 }]);
  });
  t.same(
    await items.find({}),
    [{ _id: 1, title: 'Committed map', media_ids: [8], site: 1 }],
    'after the batch, the table holds its outcome',
  );
});

t.test(
  'a document written and updated again and again in a batch ends in its table with its last content',
  async (t) => {
    const file = join(t.testdir(), 'read-models.sqlite');
    const store = new SqliteDocumentStore(file);
    t.teardown(() => store.close());
    const items = store.collection<Item>('items');
    await store.batch(async () => {
      for (let n = 1; n <= 3; n++) await items.put({ _id: 1, title: `Version ${n}`, media_ids: [] });
      await items.updateOne({ _id: 1 }, { $push: { media_ids: 4 } });
    });
    await store.close();
    const db = new Database(file, { readonly: true });
    t.teardown(() => db.close());
    t.same(db.prepare('SELECT rowid, doc FROM docs_items').all(), [
      { rowid: 1, doc: JSON.stringify({ _id: 1, title: 'Version 3', media_ids: [4] }) },
    ]);
  },
);

t.test('in a batch, a bad document or update fails its own call, and changes nothing', async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
  t.teardown(() => store.close());
  const items = store.collection<Item>('items', { indexes: ['site'] });
  const shared = { _id: 1, title: 'Kept', media_ids: [2] };
  await store.batch(async () => {
    await items.put(shared);
    await t.rejects(
      items.put({ _id: 2, title: 'Bad', media_ids: [], site: [1] as unknown as number }),
      UnsupportedQueryError,
      'refused at the put, not at the end of the batch',
    );
    await t.rejects(
      items.updateOne({ _id: 1 }, { $set: { title: 'Changed' }, $inc: { title: 1 } }),
      UnsupportedQueryError,
    );
    t.same(
      await items.findOne({ _id: 1 }),
      { _id: 1, title: 'Kept', media_ids: [2] },
      'the failed update left the document as it was',
    );
    await items.updateOne({ _id: 1 }, { $push: { media_ids: 3 } });
    t.same(shared.media_ids, [2], 'an update never changes a document the caller handed in or was handed');
  });
  t.same(await items.find({}), [{ _id: 1, title: 'Kept', media_ids: [2, 3] }]);
});

t.test('in a batch, an update leaves the document handed out before it as it was, nested values too', async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
  t.teardown(() => store.close());
  const items = store.collection<Item & { meta?: { tags: string[]; note: string } }>('items');
  await store.batch(async () => {
    await items.put({ _id: 1, title: 'First', media_ids: [1], meta: { tags: ['a'], note: 'n' } });
    const before = await items.findOne({ _id: 1 });
    await items.updateOne(
      { _id: 1 },
      { $addToSet: { media_ids: 2 }, $set: { 'meta.note': 'changed', title: 'Second' }, $push: { 'meta.tags': 'b' } },
    );
    t.same(
      before,
      { _id: 1, title: 'First', media_ids: [1], meta: { tags: ['a'], note: 'n' } },
      'the earlier document is unchanged, its array and nested object too',
    );
    t.same(await items.findOne({ _id: 1 }), {
      _id: 1,
      title: 'Second',
      media_ids: [1, 2],
      meta: { tags: ['a', 'b'], note: 'changed' },
    });
  });
  t.same(await items.find({}), [
    { _id: 1, title: 'Second', media_ids: [1, 2], meta: { tags: ['a', 'b'], note: 'changed' } },
  ]);
});

t.test('a process that dies in a batch leaves nothing of it in the file, even what a query wrote out', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const script = join(t.testdir(), 'dies.mts');
  const storeModule = new URL('../../../infra/document-store/sqlite.ts', import.meta.url).href;
  writeFileSync(
    script,
    `import { SqliteDocumentStore } from ${JSON.stringify(storeModule)};
const store = new SqliteDocumentStore(${JSON.stringify(file)});
const docs = store.collection('docs', { indexes: ['n'] });
await docs.put({ _id: 'before', n: 0 });
await store.close();
const again = new SqliteDocumentStore(${JSON.stringify(file)});
const more = again.collection('docs', { indexes: ['n'] });
await again.batch(async () => {
  for (let n = 1; n <= 500; n++) await more.put({ _id: 'batch-' + n, n });
  // A query by another field writes the batch's documents into the open transaction first.
  console.log(await more.count({ n: { $gt: 0 } }));
  await more.put({ _id: 'after-the-query', n: 1 });
  await again.collection('_checkpoints').put({ _id: 'p', position: 501 });
  process.kill(process.pid, 'SIGKILL');
});
`,
  );
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
  t.equal(run.signal, 'SIGKILL', run.stderr);
  t.equal(run.stdout.trim(), '500', 'the query saw the batch');
  t.same(committedIds(file, 'docs'), ['before'], 'only what committed before the batch');
  const store = new SqliteDocumentStore(file);
  t.teardown(() => store.close());
  t.same(await store.collection('_checkpoints').find({}), [], 'and no checkpoint');
  t.equal(await store.collection('docs', { indexes: ['n'] }).count({ n: { $gt: 0 } }), 0);
});
