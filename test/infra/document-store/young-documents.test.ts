import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryDocumentStore, type MemoryDocumentStoreOptions } from '../../../infra/document-store/memory.js';
import type { Document } from '../../../infra/document-store/port.js';
import { YoungDocuments } from '../../../infra/document-store/young-documents.js';

const long = (seed: string): string => `${seed} `.repeat(100);

function storeWith(t: Test, options: MemoryDocumentStoreOptions): MemoryDocumentStore {
  const directory = mkdtempSync(join(tmpdir(), 'young-documents-test-'));
  const store = new MemoryDocumentStore({ directory, ...options });
  t.teardown(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

t.test('the oldest young documents are spilled once the young ones pass the budget', async (t) => {
  const spilled: number[] = [];
  const young = new YoungDocuments<string>(1000, 60_000, (_owner, doc) => spilled.push(doc._id as number));
  for (let id = 1; id <= 4; id++) young.add('posts', { _id: id }, 300);
  t.same(spilled, [1, 2, 3], 'over 1,000 characters, the oldest go until at most half is left');
  young.spillAll();
  t.same(spilled, [1, 2, 3, 4]);
  young.clear();
});

t.test('a store keeps a fresh document as given, and spills it once it has aged', async (t) => {
  const store = storeWith(t, { youngChars: 1000, youngIdleMs: 50 });
  const posts = store.collection<Document>('posts');
  const first: Document = { _id: 1, content: long('first') };
  await posts.put(first);
  t.equal(await posts.findOne({ _id: 1 }), first, 'young: the very object stored');
  await sleep(150);
  const aged = (await posts.findOne({ _id: 1 })) as Document;
  t.not(aged, first, 'spilled after a quiet spell');
  t.equal(aged.content, long('first'));
});

t.test('young documents replaced, updated and deleted before they age come out right', async (t) => {
  const store = storeWith(t, { youngChars: 5000, youngIdleMs: 60_000 });
  const items = store.collection<Document>('items');
  for (let id = 1; id <= 40; id++) {
    await items.put({ _id: id, title: `Item ${id}`, description: long(`created ${id}`), media_ids: [] });
    await items.put({ _id: id, title: `Item ${id}`, description: long(`edited ${id}`), media_ids: [] });
    await items.updateOne({ _id: id }, { $addToSet: { media_ids: id } });
    if (id % 10 === 0) await items.deleteOne({ _id: id });
  }
  t.equal(await items.count(), 36);
  let wrong = 0;
  for (let id = 1; id <= 40; id++) {
    const item = await items.findOne({ _id: id });
    if (id % 10 === 0) {
      if (item !== null) wrong++;
    } else if (item?.description !== long(`edited ${id}`) || JSON.stringify(item.media_ids) !== `[${id}]`) wrong++;
  }
  t.equal(wrong, 0);
});
