import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { MongoDocumentStore } from '../../infra/document-store/mongo.js';
import { databaseFromUrl } from '../../infra/document-store/mongo-url.js';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import type { Document, DocumentStore, Filter } from '../../infra/document-store/port.js';
import { DependencyUnavailableError } from '../../infra/errors.js';

interface Context {
  teardown(fn: () => unknown): void;
}

/** Builds an empty store for one test and cleans it up on teardown. */
type Factory = (t: Context) => Promise<DocumentStore>;

const MONGO_URL = process.env.MONGO_URL;

interface Item extends Document {
  _id: number;
  title: string;
  year: number;
  tags: string[];
  owner: { name: string; city: string };
  copies: { branch: string; count: number }[];
  note?: string;
  /** Long enough for the embedded store to spill it once the document has aged. */
  description: string;
}

const describe = (subject: string) =>
  `${subject}: ${'a long catalogue description, as librarians write them. '.repeat(6)}`;

const ITEMS: Item[] = [
  {
    _id: 1,
    title: 'Map of Lisbon',
    year: 1755,
    tags: ['maps', 'portugal'],
    owner: { name: 'Ana', city: 'Lisbon' },
    copies: [{ branch: 'main', count: 2 }],
    note: 'fragile',
    description: describe('Map of Lisbon'),
  },
  {
    _id: 2,
    title: 'Atlas of Europe',
    year: 1820,
    tags: ['maps', 'europe'],
    owner: { name: 'Bo', city: 'Oslo' },
    copies: [
      { branch: 'east', count: 1 },
      { branch: 'main', count: 0 },
    ],
    description: describe('Atlas of Europe'),
  },
  {
    _id: 3,
    title: 'Letters from Porto',
    year: 1901,
    tags: ['letters', 'portugal'],
    owner: { name: 'Ana', city: 'Porto' },
    copies: [],
    description: describe('Letters from Porto'),
  },
  {
    _id: 4,
    title: 'Harbour photographs',
    year: 1933,
    tags: ['photos'],
    owner: { name: 'Cy', city: 'Lisbon' },
    copies: [{ branch: 'west', count: 5 }],
    description: describe('Harbour photographs'),
  },
  {
    _id: 5,
    title: 'map sketches',
    year: 1790,
    tags: ['maps', 'sketches'],
    owner: { name: 'Bo', city: 'Bergen' },
    copies: [{ branch: 'main', count: 3 }],
    description: describe('map sketches'),
  },
];

const ids = (docs: Document[]) => docs.map((d) => d._id);

interface Post extends Document {
  _id: number;
  title: string;
  excerpt: string;
  status: 'published' | 'draft';
}

/** One constant object, as the port asks of callers. */
const POST_TEXT = { fields: ['title', 'excerpt'] } as const;

const POSTS: Post[] = [
  { _id: 1, title: 'The map of Lisbon (1755)', excerpt: 'Back from conservation.', status: 'published' },
  { _id: 2, title: 'Letters from Évora', excerpt: 'A bundle found in a drawer.', status: 'published' },
  { _id: 3, title: 'Harbour days', excerpt: 'Photographs of LISBON quays.', status: 'draft' },
  { _id: 4, title: 'Harbour photographs', excerpt: 'Glass plates.', status: 'published' },
  { _id: 5, title: 'Notes on a.b and c++', excerpt: 'Map marks, axb not included.', status: 'draft' },
];

/** The one contract every DocumentStore adapter keeps. */
function documentStoreContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;

    async function seeded(t: Context) {
      const store = await make(t);
      const items = store.collection<Item>('items');
      await items.putMany(ITEMS);
      return { store, items };
    }

    t.test('findOne by _id and by field; a miss is null', async (t) => {
      const { items } = await seeded(t);
      t.same(await items.findOne({ _id: 3 }), ITEMS[2]);
      t.equal((await items.findOne({ title: 'Atlas of Europe' }))?._id, 2);
      t.equal(await items.findOne({ _id: 99 }), null);
    });

    t.test('filters: equality on arrays, $in, $regex, nested fields, $elemMatch, ranges, $exists', async (t) => {
      const { items } = await seeded(t);
      const sorted = { sort: { _id: 1 as const } };
      t.same(ids(await items.find({ tags: 'portugal' }, sorted)), [1, 3], 'a value matches inside an array');
      t.same(ids(await items.find({ tags: { $in: ['photos', 'letters'] } }, sorted)), [3, 4], '$in');
      t.same(
        ids(await items.find({ description: { $regex: '^letters from', $options: 'i' } }, sorted)),
        [3],
        '$regex on a long string',
      );
      t.same(ids(await items.find({ _id: { $in: [5, 2, 42] } }, sorted)), [2, 5], '$in on _id');
      t.same(
        ids(await items.find({ title: { $regex: '^map', $options: 'i' } }, sorted)),
        [1, 5],
        '$regex with options',
      );
      t.same(
        ids(await items.find({ title: { $regex: 'of' } }, sorted)),
        [1, 2],
        '$regex is case-sensitive without options',
      );
      t.same(ids(await items.find({ 'owner.city': 'Lisbon' }, sorted)), [1, 4], 'nested field by dotted path');
      t.same(
        ids(await items.find({ 'owner.name': 'Ana', year: { $gt: 1800 } }, sorted)),
        [3],
        'nested field and a range together',
      );
      t.same(
        ids(await items.find({ copies: { $elemMatch: { branch: 'main', count: { $gt: 0 } } } }, sorted)),
        [1, 5],
        '$elemMatch needs one element to match both',
      );
      t.same(ids(await items.find({ 'copies.branch': 'east' }, sorted)), [2], 'dotted path into an array of objects');
      t.same(ids(await items.find({ year: { $gte: 1790, $lt: 1901 } }, sorted)), [2, 5], 'ranges');
      t.same(ids(await items.find({ note: { $exists: true } }, sorted)), [1], '$exists');
      t.same(ids(await items.find({ $or: [{ year: { $lt: 1760 } }, { tags: 'photos' }] }, sorted)), [1, 4], '$or');
      t.same(
        ids(await items.find({ tags: { $nin: ['maps'] }, 'owner.name': { $ne: 'Cy' } }, sorted)),
        [3],
        '$nin and $ne',
      );
    });

    t.test('find sorts, skips and limits', async (t) => {
      const { items } = await seeded(t);
      t.same(ids(await items.find({}, { sort: { year: 1 } })), [1, 5, 2, 3, 4], 'ascending');
      t.same(ids(await items.find({}, { sort: { year: -1 } })), [4, 3, 2, 5, 1], 'descending');
      t.same(
        ids(await items.find({}, { sort: { 'owner.name': 1, year: -1 } })),
        [3, 1, 2, 5, 4],
        'several keys, nested',
      );
      t.same(ids(await items.find({}, { sort: { year: 1 }, skip: 1, limit: 2 })), [5, 2], 'skip then limit');
      t.same(ids(await items.find({ tags: 'maps' }, { sort: { year: 1 }, skip: 2 })), [2], 'skip on a filter');
      t.same(await items.find({}, { sort: { year: 1 }, skip: 10 }), [], 'skip past the end');
      t.same(await items.find({}, { limit: 0 }), [], 'limit 0 is no documents');
    });

    t.test(
      'find with fields answers _id and the fields asked for, filtered, sorted and windowed as usual',
      async (t) => {
        const { items } = await seeded(t);
        t.same(await items.find({ tags: 'maps' }, { sort: { year: 1 }, fields: ['title', 'tags'] }), [
          { _id: 1, title: 'Map of Lisbon', tags: ['maps', 'portugal'] },
          { _id: 5, title: 'map sketches', tags: ['maps', 'sketches'] },
          { _id: 2, title: 'Atlas of Europe', tags: ['maps', 'europe'] },
        ]);
        t.same(
          await items.find({}, { sort: { _id: 1 }, skip: 3, fields: [] }),
          [{ _id: 4 }, { _id: 5 }],
          'no fields: the ids alone',
        );
        t.same(
          await items.find({ _id: { $in: [1, 2] } }, { sort: { _id: 1 }, fields: ['note', 'owner', 'year'] }),
          [
            { _id: 1, note: 'fragile', owner: { name: 'Ana', city: 'Lisbon' }, year: 1755 },
            { _id: 2, owner: { name: 'Bo', city: 'Oslo' }, year: 1820 },
          ],
          'objects come whole, and a field the document lacks is absent, not null',
        );
        t.same(
          await items.find({ _id: 3 }, { fields: ['title'] }),
          [{ _id: 3, title: 'Letters from Porto' }],
          'a look-up by _id',
        );
        t.same(
          (await items.findOne({ _id: 3 }))?.description,
          ITEMS[2].description,
          'a later whole read is not cut to the fields',
        );
        await t.rejects(items.find({}, { fields: ['owner.city'] }), 'a dotted path is refused');
      },
    );

    t.test('count with and without a filter', async (t) => {
      const { store, items } = await seeded(t);
      t.equal(await items.count(), 5);
      t.equal(await items.count({ tags: 'maps' }), 3);
      t.equal(await items.count({ 'owner.city': 'Nowhere' }), 0);
      t.equal(await store.collection('never-written').count(), 0, 'a collection never written is empty');
    });

    t.test('insert adds a document only when its _id is free; of racing inserts exactly one adds', async (t) => {
      const { store } = await seeded(t);
      const stamps = store.collection<{ _id: string; by: string }>('insert-once');
      t.equal(await stamps.insert({ _id: 'log', by: 'a' }), true, 'the first adds');
      t.equal(await stamps.insert({ _id: 'log', by: 'b' }), false, 'a second does not');
      t.same(await stamps.findOne({ _id: 'log' }), { _id: 'log', by: 'a' }, 'and leaves the first as it was');
      const racing = await Promise.all(
        Array.from({ length: 8 }, (_, i) => stamps.insert({ _id: 'race', by: `writer ${i}` })),
      );
      t.equal(racing.filter(Boolean).length, 1, 'one of eight racing inserts adds');
      const kept = await stamps.findOne({ _id: 'race' });
      t.equal(kept?.by, `writer ${racing.indexOf(true)}`, "and the document is that one's");
    });

    t.test('put inserts, and replaces the whole document with the same _id', async (t) => {
      const { items } = await seeded(t);
      const replacement: Item = {
        _id: 1,
        title: 'Map of Lisbon (restored)',
        year: 1756,
        tags: [],
        owner: { name: 'Dee', city: 'Faro' },
        copies: [],
        description: describe('Map of Lisbon (restored)'),
      };
      await items.put(replacement);
      t.same(await items.findOne({ _id: 1 }), replacement, 'fields not in the new document are gone');
      await items.put({ ...replacement, _id: 6 });
      t.equal(await items.count(), 6);
      await items.putMany([
        { ...replacement, _id: 6, title: 'six' },
        { ...replacement, _id: 7, title: 'seven' },
      ]);
      t.same(
        (await items.find({ _id: { $in: [6, 7] } }, { sort: { _id: 1 } })).map((d) => d.title),
        ['six', 'seven'],
      );
      await items.putMany([]);
      t.equal(await items.count(), 7);
    });

    t.test('a field holding undefined is not stored: absent when read, unseen by $exists', async (t) => {
      const store = await make(t);
      const notes = store.collection<{ _id: number; note?: string; meta: { by?: string; at: number } }>('notes');
      await notes.put({ _id: 1, note: undefined, meta: { by: undefined, at: 1 } });
      await notes.putMany([{ _id: 2, note: undefined, meta: { at: 2 } }]);
      const one = await notes.findOne({ _id: 1 });
      t.equal(one?.note, undefined, 'not null');
      t.equal(one?.meta.by, undefined, 'nor inside an object');
      t.equal(await notes.count({ note: { $exists: true } }), 0, '$exists');
      t.equal(await notes.count({ 'meta.by': { $exists: true } }), 0, '$exists on a nested path');
      t.same(ids(await notes.find({ note: { $exists: false } }, { sort: { _id: 1 } })), [1, 2]);
    });

    t.test('string ids work too', async (t) => {
      const store = await make(t);
      const checkpoints = store.collection<{ _id: string; position: number }>('checkpoints');
      await checkpoints.put({ _id: 'directory', position: 12 });
      await checkpoints.put({ _id: 'directory', position: 15 });
      t.same(await checkpoints.find({}), [{ _id: 'directory', position: 15 }]);
    });

    t.test(
      'updateOne and updateMany with $set, $unset, $inc, $pull, $push; they answer the matched count',
      async (t) => {
        const { items } = await seeded(t);
        t.equal(
          await items.updateOne(
            { _id: 1 },
            { $set: { title: 'Lisbon map', 'owner.city': 'Sintra' }, $unset: { note: '' } },
          ),
          1,
        );
        const one = await items.findOne({ _id: 1 });
        t.equal(one?.title, 'Lisbon map');
        t.same(one?.owner, { name: 'Ana', city: 'Sintra' }, '$set on a nested path keeps the sibling');
        t.notOk(one && 'note' in one, '$unset removes the field');

        t.equal(await items.updateMany({ tags: 'maps' }, { $pull: { tags: 'maps' }, $inc: { year: 1 } }), 3);
        t.same(ids(await items.find({ tags: 'maps' })), [], '$pull removed the value everywhere');
        t.same(
          (await items.find({ _id: { $in: [1, 2, 5] } }, { sort: { _id: 1 } })).map((d) => d.year),
          [1756, 1821, 1791],
          '$inc',
        );
        t.same((await items.findOne({ _id: 2 }))?.tags, ['europe']);

        t.equal(await items.updateOne({ _id: 4 }, { $push: { tags: 'harbour' } }), 1);
        t.same((await items.findOne({ _id: 4 }))?.tags, ['photos', 'harbour']);

        t.equal(await items.updateOne({ _id: 404 }, { $set: { title: 'x' } }), 0, 'no match, no insert');
        t.equal(await items.count(), 5);
        t.equal(await items.updateMany({ year: { $gt: 3000 } }, { $set: { title: 'x' } }), 0);
      },
    );

    t.test('$addToSet adds a value the array lacks, and only then', async (t) => {
      const { items } = await seeded(t);
      t.equal(
        await items.updateOne({ _id: 4 }, { $addToSet: { tags: 'photos' } }),
        1,
        'matched, though nothing changed',
      );
      t.same((await items.findOne({ _id: 4 }))?.tags, ['photos'], 'a value already there is not added twice');
      t.equal(await items.updateMany({ 'owner.name': 'Bo' }, { $addToSet: { tags: 'norway' } }), 2);
      t.same(
        (await items.find({ tags: 'norway' }, { sort: { _id: 1 } })).map((d) => d.tags),
        [
          ['maps', 'europe', 'norway'],
          ['maps', 'sketches', 'norway'],
        ],
        'added at the end',
      );
    });

    t.test('deleteOne and deleteMany answer how many went', async (t) => {
      const { items } = await seeded(t);
      t.equal(await items.deleteOne({ tags: 'maps' }), 1, 'only one of the matches');
      t.equal(await items.count({ tags: 'maps' }), 2);
      t.equal(await items.deleteMany({ 'owner.name': 'Bo' }), 2);
      t.equal(await items.deleteOne({ _id: 404 }), 0);
      t.same(ids(await items.find({}, { sort: { _id: 1 } })).length, 2);
    });

    t.test(
      'a text search: a substring of a declared text field, case aside, its characters taken literally',
      async (t) => {
        const store = await make(t);
        const posts = store.collection<Post>('posts', { textSearch: POST_TEXT });
        await posts.putMany(POSTS);
        const byText = async (text: string, filter: Filter = {}) =>
          ids(await posts.find(filter, { text, sort: { _id: 1 } }));
        t.same(await byText('lisbon'), [1, 3], 'in any declared field, whatever the case');
        t.same(await byText('ÉVORA'), [2], 'case aside beyond ASCII');
        t.same(await byText('bour pho'), [4], 'a substring across words');
        t.same(await byText('(1755)'), [1], 'parentheses are characters');
        t.same(await byText('a.b'), [5], 'a dot is a dot, not any character');
        t.same(await byText('c++'), [5], 'plus signs are characters');
        t.same(await byText('^map'), [], 'a caret is a character');
        t.same(await byText('lisbon', { status: 'published' }), [1], 'with a filter');
        t.same(await byText('nothing like this'), [], 'no match');
        t.same(await byText(''), [1, 2, 3, 4, 5], 'an empty text matches every document');
        t.same(ids(await posts.find({}, { text: 'lisbon', sort: { _id: -1 }, limit: 1 })), [3], 'sorted and limited');
        t.equal(await posts.count({}, { text: 'LISBON' }), 2, 'count');
        t.equal(await posts.count({ status: 'draft' }, { text: 'lisbon' }), 1, 'count with a filter');
        await t.rejects(
          store.collection<Post>('undeclared').find({}, { text: 'lisbon' }),
          'a collection without text fields refuses a text search',
        );
      },
    );

    t.test('drop empties one collection; dropAll empties every collection', async (t) => {
      const { store, items } = await seeded(t);
      const other = store.collection<{ _id: string }>('other');
      await other.put({ _id: 'x' });
      await items.drop();
      t.equal(await items.count(), 0);
      t.equal(await other.count(), 1, 'other collections stay');
      await items.drop();
      t.pass('dropping an empty collection is fine');
      await items.put(ITEMS[0]);
      t.equal(await items.count(), 1, 'a dropped collection can be written again');
      await store.dropAll();
      t.equal(await items.count(), 0);
      t.equal(await other.count(), 0);
      await other.put({ _id: 'y' });
      t.same(await other.find({}), [{ _id: 'y' }], 'usable after dropAll');
    });

    t.test('dropAll keeps the collections it is told to keep, whole', async (t) => {
      const { store, items } = await seeded(t);
      const kept = store.collection<{ _id: string; n: number }>('kept');
      const keptToo = store.collection<{ _id: string }>('kept-too');
      await kept.putMany([
        { _id: 'a', n: 1 },
        { _id: 'b', n: 2 },
      ]);
      await keptToo.put({ _id: 'c' });
      await store.dropAll({ keep: ['kept', 'kept-too'] });
      t.equal(await items.count(), 0, 'the others are dropped');
      t.same(
        await kept.find({}, { sort: { n: 1 } }),
        [
          { _id: 'a', n: 1 },
          { _id: 'b', n: 2 },
        ],
        'a kept collection holds its documents',
      );
      t.same(await keptToo.find({}), [{ _id: 'c' }]);
      t.same(await kept.find({ n: { $gt: 1 } }), [{ _id: 'b', n: 2 }], 'and answers queries');
      await kept.put({ _id: 'd', n: 3 });
      t.equal(await kept.count(), 3, 'and takes writes');
      await store.dropAll({ keep: [] });
      t.equal(await kept.count(), 0, 'an empty keep list drops everything');
    });
  });
}

documentStoreContract('in-memory document store', async (t) => {
  const store = new MemoryDocumentStore();
  t.teardown(() => store.close());
  return store;
});

/** A store in a directory of its own, removed with it on teardown. */
function sqliteStore(t: Context): SqliteDocumentStore {
  const directory = mkdtempSync(join(tmpdir(), 'docstore-contract-'));
  const store = new SqliteDocumentStore(join(directory, 'read-models.sqlite'));
  t.teardown(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

documentStoreContract('SQLite document store', async (t) => sqliteStore(t));

documentStoreContract('SQLite document store, with the fields the contract queries declared as indexes', async (t) => {
  const store = sqliteStore(t);
  store.collection('items', { indexes: ['title', 'year', ['year', 'title']] });
  return store;
});

// CI points MONGO_URL at the mongo-java-server stand-in (stack/mongo/start.sh), which is not
// MongoDB; nothing here is skipped for it, so the suite holds against a real MongoDB as it is.
documentStoreContract(
  'MongoDB document store',
  MONGO_URL
    ? async (t) => {
        // A fresh database per test, so dropAll and counts see only this test's documents.
        const store = await MongoDocumentStore.connect(MONGO_URL, { database: `contract_${randomUUID().slice(0, 8)}` });
        t.teardown(async () => {
          await store.dropAll();
          await store.close();
        });
        return store;
      }
    : null,
  MONGO_URL ? undefined : 'MONGO_URL unset',
);

t.test('MongoDB: an unreachable server is DependencyUnavailableError', async (t) => {
  const error = await MongoDocumentStore.connect('mongodb://127.0.0.1:1/x', { serverSelectionTimeoutMS: 300 }).then(
    (store) => store.close().then(() => null),
    (e: unknown) => e,
  );
  t.ok(error instanceof DependencyUnavailableError, 'DependencyUnavailableError');
  t.equal((error as DependencyUnavailableError).dependency, 'MongoDB');
});

t.test('MongoDB: the database comes from the URL path, default "collections"', async (t) => {
  t.equal(databaseFromUrl('mongodb://mongo:27017/library?replicaSet=rs0'), 'library');
  t.equal(databaseFromUrl('mongodb://a:1,b:2/multi'), 'multi');
  t.equal(databaseFromUrl('mongodb://mongo:27017'), 'collections');
  t.equal(databaseFromUrl('mongodb://mongo:27017/'), 'collections');
  t.equal(databaseFromUrl('mongodb+srv://user:p%40ss@cluster.example.net/app'), 'app');
});
