import t from 'tap';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSqliteDocumentStore } from '../../../infra/document-store/shared-sqlite.js';

t.test('runtimes of one process share the read-model file through one connection', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const first = sharedSqliteDocumentStore(file);
  const second = sharedSqliteDocumentStore(file);
  // Each write opens a transaction held until the store's next commit: a second connection of
  // this thread would block in SQLite's busy handler here.
  await first.collection('things').put({ _id: 1, name: 'one' });
  await second.collection('things').put({ _id: 2, name: 'two' });
  t.equal(await first.collection('things').count({}), 2, 'each sees the other at once');

  await first.close();
  await first.close();
  t.same(
    await second.collection('things').findOne({ _id: 1 }),
    { _id: 1, name: 'one' },
    'closing one user keeps the file open for the other',
  );
  await second.close();

  const reopened = sharedSqliteDocumentStore(file);
  t.teardown(() => reopened.close());
  t.equal(
    await reopened.collection('things').count({}),
    2,
    'the last close committed and closed; a new open reads it all',
  );
});

t.test('a file deleted and made anew at the same path is not the open one', async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'read-models.sqlite');
  const old = sharedSqliteDocumentStore(file);
  await old.collection('things').put({ _id: 1, name: 'old' });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fresh = sharedSqliteDocumentStore(file);
  t.equal(await fresh.collection('things').count({}), 0, 'a new data directory starts empty');
  await old.close();
  await fresh.collection('things').put({ _id: 2, name: 'new' });
  t.equal(await fresh.collection('things').count({}), 1, 'closing the old one leaves the new one open');
  await fresh.close();
});
