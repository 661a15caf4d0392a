import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { sharedSqliteDocumentStore } from '../../../infra/document-store/shared-sqlite.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';

type Doc = {
  _id: number;
  n: number;
};

t.test('the change mark moves with every write of the store, and stays over reads', async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'), { commitIntervalMs: 5 });
  t.teardown(() => store.close());
  const docs = store.collection<Doc>('docs', { indexes: ['n'] });
  let mark = store.changeMark();
  const moved = (what: string) => {
    const now = store.changeMark();
    t.not(now, mark, `${what}: moved`);
    mark = now;
  };
  await docs.put({ _id: 1, n: 1 });
  moved('a put');
  await docs.find({ n: { $gte: 0 } });
  await docs.findOne({ _id: 1 });
  await docs.count({});
  t.equal(store.changeMark(), mark, 'reads leave it');
  await docs.updateOne({ _id: 1 }, { $set: { n: 2 } });
  moved('an update');
  await docs.putMany([{ _id: 2, n: 2 }]);
  moved('a putMany');
  await docs.deleteOne({ _id: 2 });
  moved('a delete');
  t.equal(await docs.updateOne({ _id: 99 }, { $set: { n: 3 } }), 0);
  await docs.deleteOne({ _id: 99 });
  t.equal(store.changeMark(), mark, 'an update or delete that matches nothing leaves it');
  await store.dropAll();
  moved('a drop');
});

t.test('the change mark moves with a write inside a batch, before the batch ends', async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
  t.teardown(() => store.close());
  const docs = store.collection<Doc>('docs');
  await docs.put({ _id: 1, n: 1 });
  for (const [what, write] of [
    ['a put', () => docs.put({ _id: 2, n: 1 })],
    ['a putMany', () => docs.putMany([{ _id: 3, n: 1 }])],
    ['an update by key', () => docs.updateOne({ _id: 1 }, { $set: { n: 2 } })],
    ['a delete by key', () => docs.deleteOne({ _id: 3 })],
  ] as const) {
    await store.batch(async () => {
      const before = store.changeMark();
      await write();
      t.not(store.changeMark(), before, `${what} in a batch`);
    });
  }
});

t.test('the change mark moves when another connection commits to the file (another process)', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = new SqliteDocumentStore(file, { commitIntervalMs: 5 });
  const other = new SqliteDocumentStore(file, { commitIntervalMs: 5 });
  t.teardown(async () => {
    await other.close();
    await store.close();
  });
  await store.collection<Doc>('docs').put({ _id: 1, n: 1 });
  await sleep(30);
  // A turn of the event loop later: the store looks at the file once a turn.
  await new Promise((resolve) => setImmediate(resolve));
  const mark = store.changeMark();
  await other.collection<Doc>('docs').put({ _id: 2, n: 2 });
  await sleep(30);
  await new Promise((resolve) => setImmediate(resolve));
  t.not(store.changeMark(), mark, "the other connection's commit");
});

t.test('the shared store passes the mark on', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const shared = sharedSqliteDocumentStore(file);
  t.teardown(() => shared.close());
  const mark = shared.changeMark?.();
  t.type(mark, 'number');
  await shared.collection<Doc>('docs').put({ _id: 1, n: 1 });
  t.not(shared.changeMark?.(), mark);
});
