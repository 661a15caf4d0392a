import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import t from 'tap';
import { MongoDocumentStore } from '../../../infra/document-store/mongo.js';
import { declaredIndexKeys } from '../../../infra/document-store/mongo-indexes.js';
import type { CollectionOptions } from '../../../infra/document-store/port.js';

const MONGO_URL = process.env.MONGO_URL;

t.test('the index keys a collection declares', async (t) => {
  t.same(declaredIndexKeys({}), []);
  t.same(
    declaredIndexKeys({ indexes: ['email', ['site_id', 'slug']], elementIndexes: ['tags'] }),
    [{ email: 1 }, { site_id: 1, slug: 1 }, { tags: 1 }],
    'compound in order; an array field too',
  );
  t.same(declaredIndexKeys({ indexes: ['_id', ['_id', 'n']] }), [{ _id: 1, n: 1 }], '_id alone has its index already');
});

const OPTIONS: CollectionOptions = { indexes: ['email', ['site_id', 'slug']], elementIndexes: ['tags'] };

t.test(
  'MongoDB: a collection has the indexes it declares, after a drop too',
  { skip: MONGO_URL ? false : 'MONGO_URL unset' },
  async (t) => {
    const url = MONGO_URL as string;
    const database = `indexes_${randomUUID().slice(0, 8)}`;
    const store = await MongoDocumentStore.connect(url, { database });
    const client = await new MongoClient(url).connect();
    t.teardown(async () => {
      await client.db(database).dropDatabase();
      await client.close();
      await store.close();
    });
    const keysOf = async (name: string) =>
      (await client.db(database).collection(name).listIndexes().toArray())
        .map((index) => JSON.stringify(index.key))
        .sort();
    const declaring = store.collection<{ _id: number; email?: string; tags?: string[] }>('declaring', OPTIONS);
    const plain = store.collection<{ _id: number }>('plain');

    await declaring.put({ _id: 1, email: 'a@example.org', tags: ['x'] });
    await plain.put({ _id: 1 });
    const expected = ['{"_id":1}', '{"email":1}', '{"site_id":1,"slug":1}', '{"tags":1}'];
    t.same(await keysOf('declaring'), expected, 'made before the first write');
    t.same(await keysOf('plain'), ['{"_id":1}'], 'none where none is declared');

    await declaring.drop();
    t.equal(await declaring.count(), 0);
    await declaring.put({ _id: 2 });
    t.same(await keysOf('declaring'), expected, 'made again after a drop');

    await store.dropAll();
    // Read models are used through a fresh collection() each time, as the queries do.
    await store.collection('declaring', OPTIONS).putMany([{ _id: 3 }]);
    t.same(await keysOf('declaring'), expected, 'and after dropAll');

    t.same(await store.collection('declaring', OPTIONS).find({ tags: 'x' }), [], 'queries answer as before');
  },
);
