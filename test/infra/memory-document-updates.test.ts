import t from 'tap';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';

interface Doc {
  [key: string]: unknown;
  _id: number;
  ids?: number[];
  tags?: (string | { name: string })[];
  n?: number;
  title?: string;
  owner?: { name: string; city?: string };
}

t.test('updates of top-level scalars: $addToSet, $pull, $inc, $set', async (t) => {
  const docs = new MemoryDocumentStore().collection<Doc>('docs');
  await docs.put({ _id: 1, ids: [1, 2], title: 'a' });
  await docs.updateOne({ _id: 1 }, { $addToSet: { ids: 2 } });
  t.same((await docs.findOne({ _id: 1 }))?.ids, [1, 2], 'a value already there is not added twice');
  await docs.updateOne({ _id: 1 }, { $addToSet: { ids: 3, tags: 'new' }, $inc: { n: 2 }, $set: { title: 'b' } });
  t.same(
    await docs.findOne({ _id: 1 }),
    { _id: 1, ids: [1, 2, 3], title: 'b', tags: ['new'], n: 2 },
    'missing fields are created',
  );
  await docs.updateOne({ _id: 1 }, { $pull: { ids: 2, tags: 'absent' }, $inc: { n: -1 } });
  t.same(await docs.findOne({ _id: 1 }), { _id: 1, ids: [1, 3], title: 'b', tags: ['new'], n: 1 });
});

t.test('an update never changes a document a reader already holds', async (t) => {
  const docs = new MemoryDocumentStore().collection<Doc>('docs');
  await docs.put({ _id: 1, ids: [1], owner: { name: 'Ana' } });
  const before = await docs.findOne({ _id: 1 });
  await docs.updateOne({ _id: 1 }, { $addToSet: { ids: 2 } });
  await docs.updateOne({ _id: 1 }, { $set: { 'owner.city': 'Sintra' } });
  t.same(before, { _id: 1, ids: [1], owner: { name: 'Ana' } });
  t.same(await docs.findOne({ _id: 1 }), { _id: 1, ids: [1, 2], owner: { name: 'Ana', city: 'Sintra' } });
});

t.test('updates the shortcut does not handle still follow mingo', async (t) => {
  const docs = new MemoryDocumentStore().collection<Doc>('docs');
  await docs.put({ _id: 1, tags: [{ name: 'x' }] });
  await docs.updateOne({ _id: 1 }, { $addToSet: { tags: { name: 'x' } } });
  t.same((await docs.findOne({ _id: 1 }))?.tags, [{ name: 'x' }], 'an equal object is not added again');
  await docs.updateOne({ _id: 1 }, { $pull: { tags: { name: 'x' } } });
  t.same((await docs.findOne({ _id: 1 }))?.tags, []);
});
