import { join } from 'node:path';
import t from 'tap';
import type { Collection, Document, Filter, Update } from '../../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { seededRandom } from '../../seeded-random.js';

/**
 * A batch keeps the documents it reads and writes by key and writes them at its end (or before a
 * query by anything else): the same random operations, applied one by one outside a batch and
 * in batches of random lengths, must answer alike at every step and leave the same tables.
 */

/** Fresh for each collection: a store declares a constant options object once. */
const options = () => ({ indexes: ['n', ['s', 'n']], textSearch: { fields: ['title'] } }) as const;
const WORDS = ['Lisbon', 'map', 'maps', 'harbour', 'Ship', 'ship', 'old', 'é'];

type Op = (docs: Collection<Document>) => Promise<unknown>;

function randomOps(seed: number, count: number): Op[] {
  const random = seededRandom(seed);
  const int = (max: number) => Math.floor(random() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const id = () => (random() < 0.8 ? int(12) : `k${int(4)}`);
  const doc = (): Document => ({
    _id: id(),
    n: random() < 0.1 ? null : int(5),
    s: pick(['a', 'b', 'c']),
    title: `${pick(WORDS)} ${pick(WORDS)}`,
    tags: random() < 0.5 ? [pick(['x', 'y'])] : [],
    ...(random() < 0.2 ? { gone: undefined } : {}),
  });
  const filter = (): Filter =>
    pick<Filter>([
      { n: int(5) },
      { s: pick(['a', 'b']) },
      { n: { $gte: int(5) } },
      { tags: 'x' },
      { _id: { $in: [id(), id()] } },
    ]);
  const update = (): Update =>
    pick<Update>([
      { $set: { s: pick(['a', 'b', 'c']) } },
      { $inc: { n: 1 } },
      { $addToSet: { tags: pick(['x', 'y', 'z']) } },
      { $pull: { tags: 'x' } },
      { $set: { title: pick(WORDS) } },
      { $unset: { n: '' } },
    ]);
  const ops: Op[] = [];
  for (let i = 0; i < count; i++) {
    const k = int(16);
    const key = id();
    if (k <= 3) {
      const d = doc();
      ops.push((docs) => docs.put(d));
    } else if (k === 4) {
      const ds = [doc(), doc()];
      ops.push((docs) => docs.putMany(ds));
    } else if (k <= 7) ops.push((docs) => docs.findOne({ _id: key }));
    else if (k === 8) {
      const u = update();
      ops.push((docs) => docs.updateOne({ _id: key }, u));
    } else if (k === 9) {
      const u = update();
      ops.push((docs) => docs.updateMany({ _id: key }, u));
    } else if (k === 10)
      ops.push((docs) => (random() < 0.5 ? docs.deleteOne({ _id: key }) : docs.deleteMany({ _id: key })));
    else if (k === 11) {
      const f = filter();
      ops.push((docs) => docs.find(f, { sort: { _id: 1 } }));
    } else if (k === 12) {
      const f = filter();
      ops.push((docs) => docs.count(f));
    } else if (k === 13) {
      const f = filter();
      const u = update();
      const many = random() < 0.5;
      ops.push((docs) => (many ? docs.updateMany(f, u) : docs.updateOne(f, u)));
    } else if (k === 14) {
      const text = pick(['map', 'ship', 'É', 'ol']);
      ops.push((docs) => docs.find({}, { text, sort: { _id: 1 } }));
    } else {
      const f = filter();
      const del = random() < 0.3;
      ops.push((docs) => (del ? docs.deleteMany(f) : docs.findOne(f)));
    }
  }
  return ops;
}

/** An answer as JSON, so a document and its copy from the table compare alike. */
function answer(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

async function outcome(result: Promise<unknown>): Promise<string> {
  return result.then(answer, (error: unknown) => `throws ${error instanceof Error ? error.message : String(error)}`);
}

t.test('operations in batches answer and write as the same operations one by one', async (t) => {
  const dir = t.testdir();
  const single = new SqliteDocumentStore(join(dir, 'single.sqlite'));
  const batched = new SqliteDocumentStore(join(dir, 'batched.sqlite'));
  t.teardown(async () => {
    await single.close();
    await batched.close();
  });
  let differences = 0;
  let steps = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const ops = randomOps(seed, 120);
    const a = single.collection<Document>(`c${seed}`, options());
    const b = batched.collection<Document>(`c${seed}`, options());
    const random = seededRandom(seed * 7919);
    let i = 0;
    while (i < ops.length) {
      const length = 1 + Math.floor(random() * 30);
      const part = ops.slice(i, i + length);
      const expected: string[] = [];
      for (const op of part) expected.push(await outcome(op(a)));
      const got: string[] = [];
      await batched.batch(async () => {
        for (const op of part) got.push(await outcome(op(b)));
      });
      part.forEach((_, j) => {
        steps++;
        if (expected[j] !== got[j] && ++differences <= 5)
          t.fail(`seed ${seed}, operation ${i + j}`, { expected: expected[j], got: got[j] });
      });
      i += length;
    }
    const tableA = answer(await a.find({}, { sort: { _id: 1 } }));
    const tableB = answer(await b.find({}, { sort: { _id: 1 } }));
    if (tableA !== tableB && ++differences <= 5)
      t.fail(`seed ${seed}: the tables differ`, { expected: tableA, got: tableB });
    for (const text of ['map', 'ship', 'old']) {
      const searchA = answer(await a.find({}, { text, sort: { _id: 1 } }));
      const searchB = answer(await b.find({}, { text, sort: { _id: 1 } }));
      if (searchA !== searchB && ++differences <= 5)
        t.fail(`seed ${seed}: the text index differs for "${text}"`, { expected: searchA, got: searchB });
    }
  }
  t.equal(differences, 0, `${steps} operations, ${differences} differences`);
});
