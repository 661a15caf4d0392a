import { join } from 'node:path';
import t from 'tap';
import { appModules } from '../../app/modules.js';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { seededRandom } from '../seeded-random.js';
import { mixedLog, tables } from './mixed-log.js';

/**
 * The application's projections over one log, folded one event per batch and in batches of
 * many: a batch reads what its earlier events wrote (an item its media update, a post's
 * previous slug), deletes and writes again, and queries by other fields (a deleted post's
 * comments), and must leave exactly the read models of events applied one by one, rows in the
 * same order.
 */

async function replay(file: string, events: StoredEvent[], batchSize: (i: number) => number): Promise<void> {
  const log = new SqliteEventStore(':memory:');
  const documents = new SqliteDocumentStore(file);
  const projections = appModules.flatMap((module) => module.projections ?? []);
  const runner = new ProjectionRunner(projections, new EmbeddedEventBus(log), log, documents, {
    error: () => {},
    warn: () => {},
  });
  try {
    for (let i = 0; i < events.length;) {
      const size = batchSize(i);
      await runner.handle(events.slice(i, i + size));
      i += size;
    }
    // As a rebuild ends and a runtime stops: every checkpoint saved.
    await runner.saveAllCheckpoints();
  } finally {
    await documents.close();
    await log.close();
  }
}

t.test('batches of events leave the read models that one event at a time leaves', async (t) => {
  const dir = t.testdir();
  for (const seed of [1, 2, 3]) {
    const events = mixedLog(seed);
    const single = join(dir, `single-${seed}.sqlite`);
    const batched = join(dir, `batched-${seed}.sqlite`);
    await replay(single, events, () => 1);
    const sizes = seededRandom(seed + 100);
    await replay(batched, events, () => 1 + Math.floor(sizes() * 60));
    const expected = tables(single);
    t.ok(
      Object.keys(expected).length >= 8,
      `seed ${seed}: the log fills many read models (${Object.keys(expected).join(', ')})`,
    );
    t.same(tables(batched), expected, `seed ${seed}: the same rows, in the same order`);
  }
});
