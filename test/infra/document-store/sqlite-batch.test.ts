import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t from 'tap';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { sharedSqliteDocumentStore } from '../../../infra/document-store/shared-sqlite.js';

/** What another process would see: the documents committed to the file. */
function committedIds(file: string, collection: string): unknown[] {
  const reader = new Database(file, { readonly: true });
  try {
    return reader.prepare(`SELECT _id FROM "docs_${collection}" ORDER BY _id`).pluck().all();
  } finally {
    reader.close();
  }
}

t.test('the writes of a batch commit together, even when it outlasts the commit interval', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = new SqliteDocumentStore(file, { commitIntervalMs: 5 });
  t.teardown(() => store.close());
  const docs = store.collection<{ _id: string }>('docs');
  await docs.put({ _id: 'before' });
  await sleep(30);
  t.same(committedIds(file, 'docs'), ['before'], 'a write outside a batch commits within the interval');

  let seenInside: unknown[] = [];
  await store.batch(async () => {
    await docs.put({ _id: 'a' });
    await sleep(40);
    seenInside = committedIds(file, 'docs');
    await store.collection<{ _id: string; position: number }>('_checkpoints').put({ _id: 'p', position: 2 });
  });
  t.same(seenInside, ['before'], 'nothing of the batch was committed while it ran');
  await sleep(30);
  t.same(committedIds(file, 'docs'), ['a', 'before'], 'the batch committed when it ended');
  t.same(committedIds(file, '_checkpoints'), ['p'], 'with its checkpoint');
});

t.test('a batch that throws still commits what it wrote, and later writes commit again', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = sharedSqliteDocumentStore(file);
  t.teardown(() => store.close());
  t.ok(store.batch, 'the shared SQLite store offers batch()');
  const docs = store.collection<{ _id: string }>('docs');
  await t.rejects(
    store.batch!(async () => {
      await docs.put({ _id: 'kept' });
      await sleep(80);
      throw new Error('handler failed');
    }),
    /handler failed/,
  );
  await sleep(80);
  t.same(committedIds(file, 'docs'), ['kept'], 'no rollback: projections are idempotent');
  await docs.put({ _id: 'later' });
  await sleep(80);
  t.same(committedIds(file, 'docs'), ['kept', 'later'], 'the commit timer works after the batch');
});
