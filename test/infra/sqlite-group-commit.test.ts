import Database from 'better-sqlite3';
import { join } from 'node:path';
import t from 'tap';
import { VersionConflictError } from '../../infra/errors.js';
import type { NewEvent, StoredEvent } from '../../infra/event-store/port.js';
import { SqliteEventStore, type SqliteEventStoreOptions } from '../../infra/event-store/sqlite.js';

const meta = { userId: 1, at: '2026-01-02T03:04:05.000Z' };
const event = (type: string): NewEvent => ({ type, data: {}, metadata: meta });

/** Every test runs with commits on the caller's thread, with checkpoints on a thread of their own too (the server's choice), and on the commit thread. */
const WRITERS: { name: string; options: SqliteEventStoreOptions }[] = [
  { name: 'committing on the calling thread', options: {} },
  { name: 'committing on the calling thread, checkpoints on their own', options: { checkpointThread: true } },
  { name: 'committing on its own thread', options: { commits: 'thread' } },
];
for (const { name, options } of WRITERS) {
  t.test(name, async (t) => {
    function open(t: { testdir(): string; teardown(fn: () => unknown): void }) {
      const file = join(t.testdir(), 'events.sqlite');
      const store = new SqliteEventStore(file, options);
      t.teardown(() => store.close());
      return { store, file };
    }

    t.test('appends of one tick share a commit yet keep their own version checks, in order', async (t) => {
      const { store } = open(t);
      const results = await Promise.allSettled([
        store.append('a-1', [event('A1'), event('A2')], 0),
        store.append('b-1', [event('B1')], 0),
        // The second append to a-1 in the same tick expects the stream empty: the first filled it.
        store.append('a-1', [event('A3')], 0),
        store.append('a-1', [event('A3')], 2),
      ]);
      t.same(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      t.ok(
        (results[2] as PromiseRejectedResult).reason instanceof VersionConflictError,
        'the stale one is a version conflict',
      );
      t.same((results[0] as PromiseFulfilledResult<{ position: number }>).value, { streamVersion: 2, position: 2 });
      t.same((results[3] as PromiseFulfilledResult<{ position: number }>).value, { streamVersion: 3, position: 4 });
      t.same(
        (await store.readStream('a-1')).map((e) => [e.type, e.streamVersion]),
        [
          ['A1', 1],
          ['A2', 2],
          ['A3', 3],
        ],
      );
      t.equal(await store.countEvents(), 4, 'the refused append left nothing behind');
    });

    t.test('an append that fails inside the group is undone alone', async (t) => {
      const { store } = open(t);
      // data that JSON cannot hold makes the insert throw halfway through this append's events.
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const results = await Promise.allSettled([
        store.append('ok-1', [event('Kept')], 0),
        store.append('bad-1', [event('First'), { type: 'Broken', data: cyclic, metadata: meta }], 0),
        store.append('ok-2', [event('AlsoKept')], 0),
      ]);
      t.same(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      t.same(await store.readStream('bad-1'), [], 'no half of the failed append');
      t.same(
        (await store.readAll(0, 10)).map((e) => e.type),
        ['Kept', 'AlsoKept'],
      );
    });

    t.test('an acknowledged append is on disk, and close writes appends still waiting', async (t) => {
      const { store, file } = open(t);
      await store.append('s-1', [event('Acked')], 0);
      const reader = new Database(file, { readonly: true });
      t.equal(
        (reader.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n,
        1,
        'visible to another connection',
      );
      reader.close();
      const late = store.append('s-1', [event('Late')], 1);
      await store.close();
      t.same(await late, { streamVersion: 2, position: 2 });
      const again = new SqliteEventStore(file, options);
      t.teardown(() => again.close());
      t.same(
        (await again.readStream('s-1')).map((e) => e.type),
        ['Acked', 'Late'],
      );
    });

    t.test('subscribers are woken once the group is committed', async (t) => {
      const { store } = open(t);
      const seen: string[] = [];
      const subscription = store.subscribeToAll(0, async (batch) => {
        seen.push(...batch.map((e) => e.type));
      });
      t.teardown(() => subscription.stop());
      await Promise.all([store.append('x-1', [event('X')], 0), store.append('y-1', [event('Y')], 0)]);
      const deadline = Date.now() + 5000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      t.same(seen, ['X', 'Y']);
    });

    t.test(
      'appends from separate callbacks of one event-loop turn (requests arriving together) share one commit',
      async (t) => {
        const { store } = open(t);
        const batches: string[][] = [];
        const subscription = store.subscribeToAll(0, async (batch) => {
          batches.push(batch.map((e) => e.type));
        });
        t.teardown(() => subscription.stop());
        const appended = await Promise.all(
          ['P', 'Q', 'R'].map(
            (type) =>
              new Promise((resolve, reject) =>
                setImmediate(() => store.append(`${type.toLowerCase()}-1`, [event(type)], 0).then(resolve, reject)),
              ),
          ),
        );
        t.equal(appended.length, 3);
        const deadline = Date.now() + 5000;
        while (batches.flat().length < 3 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        t.same(batches, [['P', 'Q', 'R']], 'one commit, so subscribers see the three together');
      },
    );

    t.test(
      "a subscriber handed this process's commits still gets another process's appends, each event once, in log order",
      async (t) => {
        const { store, file } = open(t);
        const other = new SqliteEventStore(file, options);
        t.teardown(() => other.close());
        const seen: StoredEvent[] = [];
        const subscription = store.subscribeToAll(0, async (batch) => {
          seen.push(...batch);
        });
        t.teardown(() => subscription.stop());
        const waitFor = async (count: number) => {
          const deadline = Date.now() + 5000;
          while (seen.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        };
        await store.append('a-1', [event('Here1')], 0);
        await waitFor(1);
        // The other process's event leaves a gap before this process's next commit.
        await other.append(
          'b-1',
          [event('There'), { type: 'WithUndefined', data: { kept: 1, dropped: undefined }, metadata: meta }],
          0,
        );
        await store.append('a-1', [event('Here2')], 1);
        await waitFor(4);
        t.same(
          seen.map((e) => [e.position, e.type]),
          [
            [1, 'Here1'],
            [2, 'There'],
            [3, 'WithUndefined'],
            [4, 'Here2'],
          ],
        );
        t.same(seen, await store.readAll(0, 10), 'handed events are exactly what a read of the log returns');
        t.notOk('dropped' in (seen[2].data as object), 'data as JSON stored it');
      },
    );

    t.test(
      'creating a stream that exists is a version conflict that writes nothing, and its group goes on',
      async (t) => {
        const { store } = open(t);
        await store.append('p-1', [event('Created'), event('Edited')], 0);
        const results = await Promise.allSettled([
          store.append('q-1', [event('Kept')], 0),
          store.append('p-1', [event('Again'), event('AgainEdited')], 0),
          store.append('r-1', [event('AlsoKept')], 0),
        ]);
        t.same(
          results.map((r) => r.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        const conflict = (results[1] as PromiseRejectedResult).reason as VersionConflictError;
        t.ok(conflict instanceof VersionConflictError);
        t.equal(conflict.actual, 2, 'the conflict names the version the stream is at');
        t.same(
          (await store.readStream('p-1')).map((e) => e.type),
          ['Created', 'Edited'],
        );
        t.same(
          (await store.readAll(0, 10)).map((e) => [e.position, e.type]),
          [
            [1, 'Created'],
            [2, 'Edited'],
            [3, 'Kept'],
            [4, 'AlsoKept'],
          ],
        );
      },
    );

    t.test('a new log has no AUTOINCREMENT; a log made with it reads and appends alike', async (t) => {
      const { store, file } = open(t);
      await store.append('a-1', [event('A')], 0);
      const reader = new Database(file, { readonly: true });
      t.notMatch(
        (reader.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").get() as { sql: string }).sql,
        /AUTOINCREMENT/,
      );
      reader.close();

      const oldFile = join(t.testdir(), 'old.sqlite');
      const old = new Database(oldFile);
      old.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL, stream_version INTEGER NOT NULL,
        type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, stream_version))`);
      old
        .prepare('INSERT INTO events (stream_id, stream_version, type, data, metadata) VALUES (?, ?, ?, ?, ?)')
        .run('o-1', 1, 'Old', '{}', JSON.stringify(meta));
      old.close();
      const reopened = new SqliteEventStore(oldFile, options);
      t.teardown(() => reopened.close());
      t.same(await reopened.append('o-2', [event('New')], 0), { streamVersion: 1, position: 2 });
      await t.rejects(reopened.append('o-1', [event('Clash')], 0), VersionConflictError);
      t.same(
        (await reopened.readAll(0, 10)).map((e) => e.type),
        ['Old', 'New'],
      );
    });
  });
}
