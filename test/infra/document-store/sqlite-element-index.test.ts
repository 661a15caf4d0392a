import { Query } from 'mingo';
import { update as mingoUpdate, type UpdateExpression } from 'mingo/updater';
import t, { type Test } from 'tap';
import { join } from 'node:path';
import type { Document, Filter, Update } from '../../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { seededRandom } from '../../seeded-random.js';

const VALUES = ['', 'a', 'b', 'A', '1', '10', 'é', 0, 1, 1.5, 10, -1, true, false, null] as const;
const OPTIONS = { indexes: ['status'], elementIndexes: ['tags'] } as const;

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

/**
 * What a post's tags may hold: an array of values (now and then with an object), one value, or
 * nothing. Not arrays inside arrays: they are outside the store's filter subset (mingo looks
 * inside them, MongoDB does not).
 */
function tagsValue(next: () => number): unknown {
  const kind = Math.floor(next() * 6);
  if (kind === 0) return pick(next, VALUES);
  if (kind === 1) return undefined;
  const list: unknown[] = Array.from({ length: Math.floor(next() * 4) }, () => pick(next, VALUES));
  if (kind === 2) list.push({ k: 'a' });
  return [...new Set(list)];
}

function doc(id: number, next: () => number): Document {
  const tags = tagsValue(next);
  return { _id: id, status: pick(next, ['publish', 'draft']), ...(tags === undefined ? {} : { tags }) };
}

/** $pull and $addToSet only on an array (mingo throws otherwise, MongoDB refuses). */
function randomUpdate(next: () => number, current: Document | undefined): Update {
  const kind = Math.floor(next() * 5);
  switch (kind < 2 && !Array.isArray(current?.tags) ? 3 : kind) {
    case 0:
      return { $pull: { tags: pick(next, VALUES) } };
    case 1:
      return { $addToSet: { tags: pick(next, VALUES) } };
    case 2:
      return { $unset: { tags: '' } };
    case 3:
      return { $set: { tags: tagsValue(next) ?? [] } };
    default:
      return { $set: { status: pick(next, ['publish', 'draft']) } };
  }
}

function mingoCount(docs: Iterable<Document>, filter: Filter): number {
  const query = new Query(filter);
  let n = 0;
  for (const d of docs) if (query.test(d)) n++;
  return n;
}

/** Every value and a few $in and combined filters: what the element index answers, against mingo. */
async function compare(
  t: Test,
  store: SqliteDocumentStore,
  name: string,
  reference: Map<number, Document>,
  when: string,
): Promise<number> {
  const collection = store.collection<Document>(name, OPTIONS);
  const filters: Filter[] = [
    ...VALUES.map((value) => ({ tags: value })),
    ...VALUES.map((value) => ({ tags: { $eq: value } })),
    { tags: { $in: ['a', 1, 'é'] } },
    { tags: { $in: ['10', 10] } },
    { status: 'publish', tags: 'a' },
    { $or: [{ tags: 'b' }, { tags: 1.5 }] },
  ];
  let wrong = 0;
  for (const filter of filters) {
    const expected = mingoCount(reference.values(), filter);
    const got = await collection.count(filter);
    if (got !== expected) {
      wrong++;
      if (wrong <= 5) t.fail(`${when}: ${JSON.stringify(filter)} counted ${got}, mingo ${expected}`);
    }
  }
  return wrong;
}

t.test(
  'an element index answers equality and $in as the JSON path does, through puts, updates, deletes and batches',
  async (t) => {
    const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
    t.teardown(() => store.close());
    const next = seededRandom(7);
    const name = 'posts';
    const collection = store.collection<Document>(name, OPTIONS);
    const reference = new Map<number, Document>();
    for (let id = 1; id <= 150; id++) reference.set(id, doc(id, next));
    await collection.putMany([...reference.values()].map((d) => structuredClone(d)));
    t.match(store.plan(name, { tags: 'a' }).join(' | '), /__elements__tags/, 'the side table answers');
    let wrong = await compare(t, store, name, reference, 'after the first puts');
    for (let step = 0; step < 600; step++) {
      const id = 1 + Math.floor(next() * 170);
      const kind = next();
      const work = async () => {
        if (kind < 0.6) {
          const current = reference.get(id);
          const update = randomUpdate(next, current);
          if (current) mingoUpdate(current, update as unknown as UpdateExpression);
          await collection.updateOne({ _id: id }, structuredClone(update));
        } else if (kind < 0.8) {
          const replacement = doc(id, next);
          reference.set(id, replacement);
          await collection.put(structuredClone(replacement));
        } else {
          reference.delete(id);
          await collection.deleteOne({ _id: id });
        }
      };
      // Half the steps inside a projection batch, where writes by key wait for its end.
      if (step % 40 < 20) await work();
      else await store.batch(work);
      if (step % 50 === 49) wrong += await compare(t, store, name, reference, `after step ${step}`);
    }
    await collection.deleteMany({ tags: 'b' });
    for (const [id, d] of reference) if (mingoCount([d], { tags: 'b' }) === 1) reference.delete(id);
    wrong += await compare(t, store, name, reference, 'after a deleteMany through the index');
    t.equal(wrong, 0, 'no count differs from mingo');
  },
);

t.test('declared on a collection that already holds documents (a file from before), the index is filled', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const next = seededRandom(11);
  const reference = new Map<number, Document>();
  for (let id = 1; id <= 80; id++) reference.set(id, doc(id, next));
  const before = new SqliteDocumentStore(file);
  await before
    .collection<Document>('posts', { indexes: ['status'] })
    .putMany([...reference.values()].map((d) => structuredClone(d)));
  await before.close();

  const after = new SqliteDocumentStore(file);
  t.teardown(() => after.close());
  t.equal(
    await compare(t, after, 'posts', reference, 'after the index was declared'),
    0,
    'every stored document is in it',
  );
  await after.dropAll();
  reference.clear();
  reference.set(1, { _id: 1, status: 'publish', tags: ['a'] });
  await after.collection<Document>('posts', OPTIONS).put({ _id: 1, status: 'publish', tags: ['a'] });
  t.equal(await compare(t, after, 'posts', reference, 'after dropAll'), 0, 'made again after a drop');
});

t.test('a field cannot be both a plain index and an element index', async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
  t.teardown(() => store.close());
  t.throws(() => store.collection('a', { indexes: ['tags'], elementIndexes: ['tags'] }), /plain index/);
  t.throws(() => store.collection('b', { elementIndexes: ['tags.x'] }), /top-level/);
});

t.test('a value most documents hold is probed per row, with the same answers', async (t) => {
  const store = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
  t.teardown(() => store.close());
  const next = seededRandom(5);
  const reference = new Map<number, Document>();
  // Past the 2,000 documents up to which a value's documents are listed first.
  for (let id = 1; id <= 3000; id++) {
    const tags = next() < 0.8 ? ['a', 1, pick(next, VALUES)] : tagsValue(next);
    reference.set(id, { _id: id, status: pick(next, ['publish', 'draft']), ...(tags === undefined ? {} : { tags }) });
  }
  const collection = store.collection<Document>('posts', OPTIONS);
  await collection.putMany([...reference.values()].map((d) => structuredClone(d)));
  t.match(store.plan('posts', { tags: 'a' }).join(' | '), /EXISTS USING/, 'a probe per row');
  t.equal(await compare(t, store, 'posts', reference, 'many holders'), 0);
  const page = await collection.find({ status: 'publish', tags: 'a' }, { sort: { _id: -1 }, limit: 10 });
  const expected = [...reference.values()]
    .filter((d) => mingoCount([d], { status: 'publish', tags: 'a' }) === 1)
    .map((d) => d._id)
    .sort((x, y) => Number(y) - Number(x))
    .slice(0, 10);
  t.same(
    page.map((d) => d._id),
    expected,
    'a page of them',
  );
});
