import { rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { MongoDocumentStore } from '../../infra/document-store/mongo.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import type { EventStore } from '../../infra/event-store/port.js';
import { PostgresEventStore } from '../../infra/event-store/postgres.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { holdToLog, logIdentityOf, OtherLogError, readModelsStamp, withoutSecrets } from '../../infra/log-identity.js';
import { eventLogFile } from '../../infra/select.js';
import { dropSchema, freshSchema } from './event-store/postgres-schemas.js';
import { testConfig } from '../test-config.js';

const PG_EVENTSTORE_URL = process.env.PG_EVENTSTORE_URL;
const AT = new Date('2026-05-01T10:00:00.000Z');

interface Context {
  teardown(fn: () => unknown): void;
}

function sqliteLog(t: Context, dataDir: string): EventStore {
  const store = new SqliteEventStore(eventLogFile(testConfig(dataDir)));
  t.teardown(() => store.close());
  return store;
}

/** A rejection's error, or null when the promise resolved. */
async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

/**
 * Two logs and one read-model store: the first log's start stamps it, a start on the same log
 * goes on, one on the other log is refused naming both, and the stamp stays the first log's.
 */
async function twoLogsOneStore(
  t: Test,
  logs: { a: EventStore; b: EventStore; describeA: string; describeB: string },
  documents: DocumentStore,
  storeDescription: string,
): Promise<void> {
  const config = testConfig(t.testdirName);
  const store = { ...readModelsStamp(documents, config), what: storeDescription };
  const a = { id: await logs.a.identity(), description: logs.describeA };
  const b = { id: await logs.b.identity(), description: logs.describeB };
  t.not(a.id, b.id, 'two logs, two identities');

  t.equal(await holdToLog(store, a, AT), 'stamped', 'the first start stamps the empty store');
  t.equal(await holdToLog(store, a, AT), 'same', 'a start on the same log goes on');

  const error = await refusal(holdToLog(store, b, AT));
  t.ok(error instanceof OtherLogError, 'a start on another log is refused');
  const message = (error as Error).message;
  for (const named of [a.id, b.id, logs.describeA, logs.describeB, storeDescription])
    t.ok(message.includes(named), `the refusal names ${named}`);
  t.match(message, /npm run rebuild/, 'and says what to do');
  t.same(await store.read(), { log: a.id, description: logs.describeA, stamped_at: AT.toISOString() });
}

t.test('SQLite logs of two DATA_DIRs, one SQLite read-model store', async (t) => {
  const dirA = join(t.testdir(), 'a');
  const dirB = join(t.testdirName, 'b');
  const documents = new SqliteDocumentStore(join(t.testdirName, 'read-models.sqlite'));
  t.teardown(() => documents.close());
  await twoLogsOneStore(
    t,
    {
      a: sqliteLog(t, dirA),
      b: sqliteLog(t, dirB),
      describeA: eventLogFile(testConfig(dirA)),
      describeB: eventLogFile(testConfig(dirB)),
    },
    documents,
    'the read models in one shared file',
  );
});

t.test('the stamp goes through the document-store port: the same rule on the in-memory store', async (t) => {
  const dir = t.testdir();
  const documents = new MemoryDocumentStore();
  await twoLogsOneStore(
    t,
    { a: sqliteLog(t, join(dir, 'a')), b: sqliteLog(t, join(dir, 'b')), describeA: 'log A', describeB: 'log B' },
    documents,
    'the read models in memory',
  );
});

t.test(
  'PostgreSQL logs in two schemas, one read-model store',
  { skip: PG_EVENTSTORE_URL ? false : 'PG_EVENTSTORE_URL unset' },
  async (t) => {
    const url = PG_EVENTSTORE_URL as string;
    const [schemaA, schemaB] = [freshSchema(), freshSchema()];
    t.teardown(async () => {
      await dropSchema(url, schemaA);
      await dropSchema(url, schemaB);
    });
    const a = new PostgresEventStore(url, { schema: schemaA });
    const b = new PostgresEventStore(url, { schema: schemaB });
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const documents = new SqliteDocumentStore(join(t.testdir(), 'read-models.sqlite'));
    t.teardown(() => documents.close());
    await twoLogsOneStore(
      t,
      { a, b, describeA: `${url} schema ${schemaA}`, describeB: `${url} schema ${schemaB}` },
      documents,
      'the read models in one shared file',
    );
    const again = new PostgresEventStore(url, { schema: schemaA });
    t.teardown(() => again.close());
    t.equal(
      await holdToLog(
        readModelsStamp(documents, testConfig(t.testdirName)),
        await logIdentityOf(again, testConfig(t.testdirName)),
        AT,
      ),
      'same',
      'another connection to the first log (a second server of the deployment) starts',
    );
  },
);

t.test('read models made before stamps (no stamp, documents present) are stamped, not refused', async (t) => {
  const dir = t.testdir();
  const documents = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
  t.teardown(() => documents.close());
  await documents.collection('items').put({ _id: 1, title: 'older' });
  await documents.collection('_checkpoints').put({ _id: 'items', position: 1 });
  const log = sqliteLog(t, dir);
  const config = testConfig(dir);
  const stamps = readModelsStamp(documents, config);
  t.equal(await holdToLog(stamps, await logIdentityOf(log, config), AT), 'stamped');
  t.equal((await stamps.read())?.log, await log.identity());
});

t.test('a stamp that is not one is an error, not a pass', async (t) => {
  const documents = new MemoryDocumentStore();
  await documents.collection('_log_identity').put({ _id: 'log', log: 42 });
  const error = await refusal(readModelsStamp(documents, testConfig(t.testdirName)).read());
  t.match((error as Error).message, /log stamp of the read models is not what was expected/);
});

t.test('a log deleted and made anew at the same path is another log', async (t) => {
  const dir = t.testdir();
  const config = testConfig(dir);
  const first = new SqliteEventStore(eventLogFile(config));
  const before = await first.identity();
  await first.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${eventLogFile(config)}${suffix}`, { force: true });
  const second = sqliteLog(t, dir);
  t.not(await second.identity(), before);
});

t.test('descriptions of URLs leave out passwords and options', async (t) => {
  t.equal(
    withoutSecrets('postgres://app:s3cret@db.example:5432/collections?sslmode=require'),
    'postgres://app@db.example:5432/collections',
  );
  t.equal(withoutSecrets('mongodb://u:p@a:1,b:2/rm?replicaSet=x'), 'mongodb://u@a:1,b:2/rm');
  t.equal(withoutSecrets('esdb://es:2113?tls=false'), 'esdb://es:2113');
  t.equal(withoutSecrets('http://es:9200'), 'http://es:9200');
});

/**
 * Servers on two logs starting at the same moment on one empty store (two hosts of a split
 * deployment on one new MongoDB database): the stamp is claimed, not read then written, so one
 * start stamps it and the other is refused, never both pass.
 */
async function twoLogsAtOnce(t: Test, documents: DocumentStore): Promise<void> {
  const config = testConfig(t.testdirName);
  const dir = t.testdir();
  for (let round = 0; round < 5; round++) {
    const store = readModelsStamp(documents, config);
    const logs = [sqliteLog(t, join(dir, `${round}-a`)), sqliteLog(t, join(dir, `${round}-b`))];
    const identities = await Promise.all(logs.map((log) => logIdentityOf(log, config)));
    const starts = await Promise.allSettled(identities.map((identity) => holdToLog(store, identity, AT)));
    t.same(
      starts.map((start) => start.status).sort(),
      ['fulfilled', 'rejected'],
      `round ${round}: one start passes, one is refused`,
    );
    const refused = starts.find((start) => start.status === 'rejected');
    t.ok(refused?.status === 'rejected' && refused.reason instanceof OtherLogError, 'refused as another log');
    await documents.dropAll();
  }
}

t.test('two logs starting at once on one empty in-memory store: one stamps, one is refused', async (t) => {
  await twoLogsAtOnce(t, new MemoryDocumentStore());
});

t.test(
  'two logs starting at once on one empty MongoDB database: one stamps, one is refused',
  { skip: process.env.MONGO_URL ? false : 'MONGO_URL unset' },
  async (t) => {
    const documents = await MongoDocumentStore.connect(process.env.MONGO_URL ?? '', {
      database: `stamps_${randomUUID().slice(0, 8)}`,
    });
    t.teardown(async () => {
      await documents.dropAll();
      await documents.close();
    });
    await twoLogsAtOnce(t, documents);
  },
);
