import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres.js';
import type { AppenderReport } from './postgres-appender.js';
import { dropSchema, freshSchema } from './postgres-schemas.js';

const PG_EVENTSTORE_URL = process.env.PG_EVENTSTORE_URL;
const APPENDER = fileURLToPath(new URL('./postgres-appender.ts', import.meta.url));
const CHILDREN = 4;
const LOOPS = 4;
const APPENDS_PER_LOOP = 40;
/** Fewer streams than loops in all: appends collide on versions and are retried. */
const STREAMS = 6;
const RACES = 10;

function runAppender(url: string, schema: string, worker: number): Promise<AppenderReport> {
  return new Promise((resolve, reject) => {
    const args = [url, schema, worker, LOOPS, APPENDS_PER_LOOP, STREAMS, RACES].map(String);
    const child = spawn(process.execPath, ['--import', 'tsx', APPENDER, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`appender ${worker} exited with ${code}: ${stderr}`));
      try {
        resolve(JSON.parse(stdout) as AppenderReport);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** Whether the condition came true within `ms`: a lost event shows in the assertions after it. */
async function waitFor(condition: () => boolean, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

t.test(
  'PostgreSQL: processes appending at once, a subscriber sees every event once, in position order',
  { skip: PG_EVENTSTORE_URL ? false : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)' },
  async (t) => {
    const url = PG_EVENTSTORE_URL as string;
    const schema = freshSchema();
    const store = new PostgresEventStore(url, { schema });
    t.teardown(async () => {
      await store.close();
      await dropSchema(url, schema);
    });

    // Subscribed before any append, from the start: it must see everything the children write.
    const seen: StoredEvent[] = [];
    const outOfOrder: string[] = [];
    const subscription = store.subscribeToAll(0, async (batch) => {
      for (const event of batch) {
        const previous = seen.length > 0 ? seen[seen.length - 1].position : 0;
        if (event.position <= previous) outOfOrder.push(`${event.position} after ${previous}`);
        seen.push(event);
      }
      // A handler that takes a moment, so appends pile up behind it.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    });
    t.teardown(() => subscription.stop());

    const reports = await Promise.all(
      Array.from({ length: CHILDREN }, (_, worker) => runAppender(url, schema, worker)),
    );
    const appended = reports.flatMap((report) => report.appended);
    t.ok(await waitFor(() => seen.length >= appended.length), `the subscriber sees ${appended.length} events`);
    // Any extra (duplicated or unreported) event would arrive by now.
    await new Promise((resolve) => setTimeout(resolve, 700));

    t.comment(
      `${appended.length} events from ${CHILDREN} processes, ${reports.reduce((n, r) => n + r.conflicts, 0)} version conflicts retried`,
    );
    t.same(outOfOrder, [], 'strictly increasing positions');
    t.equal(seen.length, appended.length, 'as many events seen as appended');
    const seenById = new Map(seen.map((event) => [(event.data as { id: string }).id, event]));
    t.equal(seenById.size, seen.length, 'each event seen once');
    const mismatched = appended.filter((a) => {
      const event = seenById.get(a.id);
      return (
        !event ||
        event.position !== a.position ||
        event.streamId !== a.streamId ||
        event.streamVersion !== a.streamVersion
      );
    });
    t.same(mismatched, [], 'every reported append seen at its position, stream and version');
    t.same(
      seen.map((event) => event.position),
      Array.from({ length: seen.length }, (_, i) => i + 1),
      'positions without gaps',
    );

    const versions = new Map<string, number[]>();
    for (const event of seen)
      versions.set(event.streamId, [...(versions.get(event.streamId) ?? []), event.streamVersion]);
    for (const [stream, list] of versions)
      t.same(
        list,
        list.map((_, i) => i + 1),
        `${stream}: versions 1..${list.length} in order`,
      );

    const winners = reports.flatMap((report) => report.racesWon).sort();
    t.same(
      winners,
      Array.from({ length: RACES }, (_, k) => `race-${k}`).sort(),
      'each stream created with expected version 0 by exactly one process',
    );
    t.equal(await store.countEvents(), appended.length, 'the log holds exactly what was reported');
  },
);
