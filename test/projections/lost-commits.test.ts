import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import t from 'tap';
import { appModules } from '../../app/modules.js';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import { textIndexFile } from '../../infra/document-store/sqlite-tables.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { seededRandom } from '../seeded-random.js';
import { mixedLog, tables, texts } from './mixed-log.js';

/**
 * Issue 36, part 4: a read-model write the disk refuses (SQLITE_FULL) at any point of a
 * projection batch, or at the commit, loses the store's whole open transaction; the checkpoints
 * must never pass what was lost. SQLite's own limit on the file's pages (`max_page_count`, set
 * on the store's connection) makes the Nth new page of a write fail with a real SQLITE_FULL,
 * at a random point: the read models then, after the room is given back and a restart, must
 * equal a rebuild of the same log, text indexes included.
 */

const projections = appModules.flatMap((module) => module.projections ?? []);
const NO_LIMIT = 1_073_741_823;

interface Opened {
  log: SqliteEventStore;
  documents: SqliteDocumentStore;
  runner: ProjectionRunner;
  errors: string[];
}

async function open(dir: string, commitIntervalMs = 5, errors: string[] = []): Promise<Opened> {
  const log = new SqliteEventStore(join(dir, 'events.sqlite'));
  const documents = new SqliteDocumentStore(join(dir, 'read-models.sqlite'), { commitIntervalMs });
  const runner = new ProjectionRunner(projections, new EmbeddedEventBus(log), log, documents, {
    error: (_details, message) => errors.push(message),
    warn: () => {},
  });
  await runner.start();
  return { log, documents, runner, errors };
}

async function close({ log, documents, runner }: Opened): Promise<void> {
  await runner.stop();
  await documents.settled();
  await documents.close();
  await log.close();
}

/** The store's own connection: the page limit is a setting of the connection. */
function connectionOf(documents: SqliteDocumentStore): Database.Database {
  return (documents as unknown as { db: Database.Database }).db;
}

async function append(log: SqliteEventStore, events: StoredEvent[]): Promise<void> {
  await Promise.all(
    events.map((event) =>
      log.append(event.streamId, [{ type: event.type, data: event.data, metadata: event.metadata }], 'any'),
    ),
  );
}

/** Waits until the runner has folded the whole log and its read models hold it (no loss left). */
async function caughtUp(opened: Opened): Promise<void> {
  await opened.runner.catchUp(20_000);
  for (let waited = 0; opened.runner.readModelLoss() !== null; waited += 20) {
    if (waited > 20_000) throw new Error('the read models did not catch up after the room came back');
    await sleep(20);
  }
}

function readModels(dir: string): { tables: Record<string, unknown[]>; texts: Record<string, unknown[]> } {
  const file = join(dir, 'read-models.sqlite');
  return { tables: tables(file), texts: texts(file, textIndexFile(file)) };
}

async function rebuilt(dir: string, events: StoredEvent[]): Promise<ReturnType<typeof readModels>> {
  const opened = await open(dir, 50);
  await append(opened.log, events);
  await opened.runner.catchUp(20_000);
  await close(opened);
  return readModels(dir);
}

// The runner's re-fold timer and the text index's thread do not hold the process open (a server's
// socket does); here nothing else would, and a wait on them could end the file as "unfinished".
const keepAlive = setInterval(() => {}, 1_000);
t.teardown(() => clearInterval(keepAlive));

for (const seed of [1, 2, 3, 4]) {
  t.test(
    `seed ${seed}: writes the disk refuses at random points leave, after a restart, the read models of a rebuild`,
    async (t) => {
      const events = mixedLog(seed);
      const expected = await rebuilt(t.testdir({ rebuilt: {} }) + '/rebuilt', events);
      const dir = join(t.testdir({ faulted: {} }), 'faulted');
      const random = seededRandom(seed + 1000);
      const int = (max: number) => Math.floor(random() * max);
      const errors: string[] = [];
      let opened = await open(dir, 5, errors);
      let losses = 0;
      for (let i = 0; i < events.length;) {
        const db = connectionOf(opened.documents);
        const unwatch = opened.documents.watchCommits({ committed: () => {}, lost: () => losses++ });
        // From the Nth new page on, every write of the file fails with SQLITE_FULL: inside a
        // batch's documents, its checkpoints, its text marks or the commit, as N falls. Held
        // over a few appends, then lifted: the room comes back.
        db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + int(3)}`);
        for (let chunks = 1 + int(3); chunks > 0 && i < events.length; chunks--) {
          const size = 1 + int(20);
          await append(opened.log, events.slice(i, i + size));
          i += size;
          await sleep(int(30));
        }
        db.pragma(`max_page_count = ${NO_LIMIT}`);
        await caughtUp(opened);
        unwatch();
        if (random() < 0.2) {
          await close(opened);
          opened = await open(dir, 5, errors);
        }
      }
      await caughtUp(opened);
      t.ok(losses > 0, `the disk refused writes, and the read models lost them, ${losses} times`);
      t.ok(
        errors.some((message) => message.startsWith('the read models could not save')),
        'and said so in the log',
      );
      await close(opened);
      // A restart resumes from the saved checkpoints: nothing is left to fold, and nothing missing.
      opened = await open(dir, 5, errors);
      await caughtUp(opened);
      await close(opened);
      const found = readModels(dir);
      t.ok(Object.keys(expected.tables).length >= 8, 'the log fills many read models');
      t.same(found.tables, expected.tables, 'every read-model table equals the rebuild, rows and checkpoints');
      t.same(found.texts, expected.texts, 'and every text index');
    },
  );
}
