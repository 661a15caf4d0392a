/**
 * A child process of postgres-concurrency.test.ts: appends to shared streams from several loops
 * at once, retrying each append on a version conflict, and races the other processes to create
 * each `race-<k>` stream with expected version 0. Prints one JSON line: what it appended (each
 * event's id, stream, version and position), its conflicts and the race streams it won.
 *
 * Arguments: url schema worker loops appendsPerLoop streams races
 */
import { VersionConflictError } from '../../../infra/errors.js';
import type { NewEvent } from '../../../infra/event-store/port.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres.js';

export interface AppenderReport {
  appended: { id: string; streamId: string; streamVersion: number; position: number }[];
  conflicts: number;
  racesWon: string[];
}

const [url, schema, worker, loops, appendsPerLoop, streams, races] = process.argv.slice(2);
const store = new PostgresEventStore(url, { schema, maxConnections: 4 });
const report: AppenderReport = { appended: [], conflicts: 0, racesWon: [] };

function events(ids: string[]): NewEvent[] {
  return ids.map((id) => ({
    type: 'Appended',
    data: { id },
    metadata: { userId: null, at: new Date().toISOString() },
  }));
}

async function appendRetrying(streamId: string, ids: string[]): Promise<void> {
  for (;;) {
    const last = await store.readLastEvent(streamId);
    try {
      const result = await store.append(streamId, events(ids), last?.streamVersion ?? 0);
      const first = result.position - ids.length + 1;
      ids.forEach((id, i) =>
        report.appended.push({
          id,
          streamId,
          streamVersion: result.streamVersion - ids.length + 1 + i,
          position: first + i,
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      report.conflicts += 1;
    }
  }
}

async function loop(n: number): Promise<void> {
  for (let i = 0; i < Number(appendsPerLoop); i++) {
    const stream = `shared-${(Number(worker) * 7 + n * 3 + i) % Number(streams)}`;
    const count = 1 + ((i + n) % 3);
    const ids = Array.from({ length: count }, (_, j) => `${worker}-${n}-${i}-${j}`);
    await appendRetrying(stream, ids);
  }
}

async function race(k: number): Promise<void> {
  const id = `${worker}-race-${k}`;
  try {
    const result = await store.append(`race-${k}`, events([id]), 0);
    report.racesWon.push(`race-${k}`);
    report.appended.push({ id, streamId: `race-${k}`, streamVersion: 1, position: result.position });
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
  }
}

await Promise.all([
  ...Array.from({ length: Number(loops) }, (_, n) => loop(n)),
  ...Array.from({ length: Number(races) }, (_, k) => race(k)),
]);
await store.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
