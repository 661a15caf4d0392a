import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';

type Doc = { _id: number; n: number; tags: string[] };

t.test('a remembered count is never stale: every write, here or by another connection, is counted', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = new SqliteDocumentStore(file, { commitIntervalMs: 5 });
  const other = new SqliteDocumentStore(file, { commitIntervalMs: 5 });
  t.teardown(async () => {
    await store.close();
    await other.close();
  });
  const options = { indexes: ['n'], elementIndexes: ['tags'] } as const;
  const docs = store.collection<Doc>('docs', options);
  const counts = async () => [
    await docs.count({}),
    await docs.count({ n: { $gte: 2 } }),
    await docs.count({ tags: 'a' }),
  ];
  await docs.putMany([
    { _id: 1, n: 1, tags: ['a'] },
    { _id: 2, n: 2, tags: ['b'] },
  ]);
  t.same(await counts(), [2, 1, 1]);
  t.same(await counts(), [2, 1, 1], 'asked again');
  await docs.put({ _id: 3, n: 3, tags: ['a'] });
  t.same(await counts(), [3, 2, 2], 'a put');
  await docs.updateOne({ _id: 1 }, { $set: { n: 5 } });
  t.same(await counts(), [3, 3, 2], 'an update');
  await docs.deleteOne({ _id: 3 });
  t.same(await counts(), [2, 2, 1], 'a delete');
  // Each store commits its writes a few milliseconds later, and looks at the file once a turn.
  const settled = async () => {
    await sleep(30);
    await new Promise((resolve) => setImmediate(resolve));
  };
  await settled();
  await other.collection<Doc>('docs', options).put({ _id: 4, n: 4, tags: ['a'] });
  await settled();
  t.same(await counts(), [3, 3, 2], "another connection's put");
  await other.collection<Doc>('docs', options).deleteMany({});
  await settled();
  t.same(await counts(), [0, 0, 0], "another connection's delete");
});
