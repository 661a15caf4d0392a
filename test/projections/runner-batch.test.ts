import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t from 'tap';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { defineHandlerProjection } from '../../projections/projection.js';
import { ProjectionRunner } from '../../projections/runner.js';

const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };

/** What another process would read from the file: committed rows only. */
function committed(file: string): { docs: unknown[]; checkpoint: number | null } {
  const db = new Database(file, { readonly: true });
  try {
    const has = (table: string) => db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(table) !== undefined;
    const docs = has('docs_slow') ? db.prepare('SELECT _id FROM "docs_slow" ORDER BY _id').pluck().all() : [];
    const row = has('docs__checkpoints')
      ? (db.prepare(`SELECT doc FROM "docs__checkpoints" WHERE _id = 'slow'`).pluck().get() as string | undefined)
      : undefined;
    return { docs, checkpoint: row ? (JSON.parse(row) as { position: number }).position : null };
  } finally {
    db.close();
  }
}

t.test("a batch's documents and its checkpoint commit together, however long the batch takes", async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'read-models.sqlite');
  const events = new SqliteEventStore(join(dir, 'events.sqlite'));
  const documents = new SqliteDocumentStore(file, { commitIntervalMs: 1 });
  const seenMidBatch: ReturnType<typeof committed>[] = [];
  const slow = defineHandlerProjection({
    name: 'slow',
    handles: ['Happened'],
    async handle(event, docs) {
      await docs.collection<{ _id: number }>('slow').put({ _id: event.position });
      // Far past the commit interval: without the batch, the timer would commit this document alone.
      await sleep(30);
      seenMidBatch.push(committed(file));
    },
  });
  const runner = new ProjectionRunner([slow], new EmbeddedEventBus(events), events, documents, {
    error: () => {},
    warn: () => {},
  });
  t.teardown(async () => {
    await runner.stop();
    await documents.close();
    await events.close();
  });
  await events.append(
    's-1',
    [1, 2, 3].map(() => ({ type: 'Happened', data: {}, metadata: meta })),
    0,
  );
  await runner.handle(await events.readAll(0, 10));
  t.same(
    seenMidBatch,
    [1, 2, 3].map(() => ({ docs: [], checkpoint: null })),
    'nothing of the batch was committed while it ran',
  );
  await sleep(20);
  t.same(committed(file), { docs: [1, 2, 3], checkpoint: 3 }, 'then its documents and checkpoint, together');
});
