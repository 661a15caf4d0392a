import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import t, { type Test } from 'tap';
import { testConfig } from '../test-config.js';
import { CheckpointRequests } from '../../infra/event-store/checkpoint-requests.js';
import { InlineGroupWriter } from '../../infra/event-store/group-writer.js';
import type { EventStore, NewEvent } from '../../infra/event-store/port.js';
import { ThreadGroupWriter } from '../../infra/event-store/thread-group-writer.js';
import { createEventStore } from '../../infra/select.js';
import { SqliteEventStore, type SqliteEventStoreOptions } from '../../infra/event-store/sqlite.js';

const meta = { userId: 1, at: '2026-01-02T03:04:05.000Z' };
const event = (type: string): NewEvent => ({ type, data: { type }, metadata: meta });

/** The store's commit thread, reached past its privacy to stop it as a crash would. */
function commitThreadOf(store: SqliteEventStore): Worker {
  const writer = (store as unknown as { writer: { worker: Worker | null } }).writer;
  if (!writer.worker) throw new Error('no commit thread running');
  return writer.worker;
}

t.test('an in-memory log cannot be committed from another thread', async (t) => {
  t.throws(() => new SqliteEventStore(':memory:', { commits: 'thread' }), TypeError);
});

t.test('a commit thread that stops refuses the group it held; the next append starts a new one', async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'events.sqlite'), { commits: 'thread' });
  t.teardown(() => store.close());
  await store.append('a-1', [event('Before')], 0);
  const thread = commitThreadOf(store);
  const held = store.append('a-1', [event('Held')], 1);
  // Stopping as the group is sent (the flush comes in this turn; the thread's exit is told in a later one).
  const stopped = thread.terminate();
  await t.rejects(held, /commit thread stopped/, 'a group out when the thread stops is not acknowledged');
  await stopped;
  const after = await store.append('b-1', [event('After')], 0);
  t.equal(after.streamVersion, 1, 'a new thread commits');
  t.same(
    (await store.readAll(0, 10)).map((e) => e.type),
    ['Before', 'After'],
  );
});

t.test('a whole-group failure on the thread reaches every append of the group as the SQLite error', async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const store = new SqliteEventStore(file, { commits: 'thread' });
  t.teardown(() => store.close());
  await store.append('a-1', [event('First')], 0);
  // Another connection holds the write lock past the thread's busy timeout would be slow; a
  // trigger that refuses the insert fails the group inside the thread instead.
  const { default: Database } = await import('better-sqlite3');
  const other = new Database(file);
  other.exec(
    "CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.type = 'Refused' BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END;",
  );
  other.close();
  const results = await Promise.allSettled([
    store.append('b-1', [event('Kept?')], 0),
    store.append('c-1', [event('Refused')], 0),
  ]);
  t.match(results, [
    { status: 'rejected', reason: { name: 'SqliteError', message: /refused by trigger/ } },
    { status: 'rejected', reason: { name: 'SqliteError', message: /refused by trigger/ } },
  ]);
  t.same(
    (await store.readAll(0, 10)).map((e) => e.type),
    ['First'],
    'nothing of the group was written',
  );
});

/**
 * Runs `body` in a process of its own, after `const store = ...` opens a store with a commit
 * thread in the test's directory and never closes it; answers what the process printed.
 */
function runWithUnclosedStore(
  t: Test,
  body: string,
  options: SqliteEventStoreOptions = { commits: 'thread' },
): { status: number | null; stdout: string; stderr: string } {
  const script = join(t.testdir(), 'unclosed.mts');
  const storeModule = new URL('../../infra/event-store/sqlite.ts', import.meta.url).href;
  writeFileSync(
    script,
    `import { SqliteEventStore } from ${JSON.stringify(storeModule)};
const store = new SqliteEventStore(${JSON.stringify(join(t.testdir(), 'events.sqlite'))}, ${JSON.stringify(options)});
${body}
`,
  );
  return spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
}

t.test('an idle store does not keep the process alive, and a pending append does', async (t) => {
  // Once the append is answered, nothing should hold the process.
  const run = runWithUnclosedStore(
    t,
    `store.append('a-1', [{ type: 'A', data: {}, metadata: { userId: 1, at: 'now' } }], 0).then((r) => console.log(JSON.stringify(r)));`,
  );
  t.equal(run.status, 0, run.stderr);
  t.same(JSON.parse(run.stdout), { streamVersion: 1, position: 1 }, 'the append was answered before the process ended');
});

/** The checkpoint thread serves both writers: the commit thread's, and the inline writer's (the server's). */
for (const [name, options] of [
  ['committing on its own thread', { commits: 'thread' }],
  ['committing inline', { checkpointThread: true }],
] as const) {
  t.test(
    `${name}: the checkpoint thread copies committed pages into the database file while commits go on`,
    async (t) => {
      const file = join(t.testdir(), 'events.sqlite');
      const store = new SqliteEventStore(file, options);
      t.teardown(() => store.close());
      const startSize = statSync(file).size;
      // One group per append, past the commits the commit thread lets go by between requests. The
      // pages they write stay far below its own checkpoint's cap: only the checkpoint thread can
      // have copied them into the database file.
      for (let i = 1; i <= 200; i += 1) await store.append(`a-${i}`, [event('Written')], 0);
      const deadline = Date.now() + 10_000;
      while (statSync(file).size <= startSize && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      t.ok(statSync(file).size > startSize, `the database file grew from ${startSize} bytes to ${statSync(file).size}`);
      t.equal(await store.countEvents(), 200);
    },
  );

  t.test(`${name}: closing stops the threads: the log is whole in the database file and its WAL is gone`, async (t) => {
    const file = join(t.testdir(), 'events.sqlite');
    const store = new SqliteEventStore(file, options);
    for (let i = 1; i <= 300; i += 1) await store.append(`a-${i}`, [event('Written')], 0);
    await store.close();
    t.notOk(existsSync(`${file}-wal`), 'the last connection to close checkpointed and removed the WAL');
    const { default: Database } = await import('better-sqlite3');
    const reader = new Database(file, { readonly: true });
    t.teardown(() => reader.close());
    t.equal((reader.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 300);
  });

  t.test(
    `${name}: a process whose store started its checkpoint thread still ends when nothing is left to do`,
    async (t) => {
      // Enough groups to start the checkpoint thread, then nothing more.
      const run = runWithUnclosedStore(
        t,
        `for (let i = 1; i <= 200; i += 1) await store.append('a-' + i, [{ type: 'A', data: {}, metadata: { userId: 1, at: 'now' } }], 0);
console.log(JSON.stringify(await store.countEvents()));`,
        options,
      );
      t.equal(run.status, 0, run.stderr);
      t.equal(run.stdout.trim(), '200');
    },
  );
}

t.test(
  "a runtime's event log commits where EVENT_LOG_COMMITS says, with its checkpoints on their thread when inline",
  async (t) => {
    const writerOf = (store: EventStore) => (store as unknown as { writer: object }).writer;
    for (const [commits, writer] of [
      ['inline', InlineGroupWriter],
      ['thread', ThreadGroupWriter],
    ] as const) {
      const store = await createEventStore(testConfig(join(t.testdir(), commits), { eventLogCommits: commits }));
      t.type(writerOf(store), writer, commits);
      if (commits === 'inline')
        t.ok(
          (writerOf(store) as { checkpoints: unknown }).checkpoints instanceof CheckpointRequests,
          'checkpoints on their own thread',
        );
      await store.close();
    }
  },
);
