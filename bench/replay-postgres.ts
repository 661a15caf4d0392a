import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { Type } from '@sinclair/typebox';
import { REBUILD_NODE_FLAGS } from '../bin/rebuild-flags.js';
import { checkedOrThrow, parseCheckedOrThrow } from '../infra/checked-json.js';
import { PostgresEventStore } from '../infra/event-store/postgres.js';
import { importAdmin, tempDataDir } from './datasets.js';
import { EventLogWriter } from './event-log.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { runScript } from './processes.js';
import { writeMixedLog } from './replay.js';
import { figure, skipped, type BenchResult, type Figure } from './report.js';
import { median, round } from './stats.js';

const NAME = 'replay-postgres';
const TITLE = 'rebuild every read model from a PostgreSQL log, beside reading it alone and beside SQLite';
/** Rows a bulk INSERT carries while the PostgreSQL log is set up. */
const COPY_BATCH = 5_000;

const ReplayOutputSchema = Type.Object({
  events: Type.Number(),
  startup: Type.Number(),
  rebuild: Type.Array(Type.Number()),
  readOnly: Type.Array(Type.Number()),
  rss: Type.Number(),
});

const RowSchema = Type.Object({
  position: Type.Number(),
  stream_id: Type.String(),
  stream_version: Type.Number(),
  type: Type.String(),
  data: Type.String(),
  metadata: Type.String(),
});

/**
 * Setup, not measured: the SQLite log's rows copied as they are (same positions, versions and
 * JSON text) into the PostgreSQL adapter's table, 5,000 rows a multi-row INSERT (unnest of
 * arrays), one transaction each; the table and the identity row are the adapter's own.
 */
async function copyLog(sqliteFile: string, connectionString: string, schema: string): Promise<number> {
  const store = new PostgresEventStore(connectionString, { schema });
  await store.identity();
  await store.close();
  const db = new Database(sqliteFile, { readonly: true });
  const client = new pg.Client({ connectionString });
  await client.connect();
  let copied = 0;
  try {
    const rows = db
      .prepare('SELECT position, stream_id, stream_version, type, data, metadata FROM events ORDER BY position')
      .iterate();
    let batch: unknown[][] = [[], [], [], [], [], []];
    const flush = async () => {
      if (batch[0].length === 0) return;
      await client.query(
        `INSERT INTO "${schema}".events (position, stream_id, stream_version, type, data, metadata)
         SELECT p, s, v, t, d::json, m::json
         FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::text[]) AS x(p, s, v, t, d, m)`,
        batch,
      );
      copied += batch[0].length;
      batch = [[], [], [], [], [], []];
    };
    for (const raw of rows) {
      const row = checkedOrThrow(RowSchema, raw, 'a SQLite log row');
      batch[0].push(row.position);
      batch[1].push(row.stream_id);
      batch[2].push(row.stream_version);
      batch[3].push(row.type);
      batch[4].push(row.data);
      batch[5].push(row.metadata);
      if (batch[0].length >= COPY_BATCH) await flush();
    }
    await flush();
    await client.query(`ANALYZE "${schema}".events`);
  } finally {
    await client.end();
    db.close();
  }
  return copied;
}

async function replay(
  dataDir: string,
  eventStoreUrl: string,
  rounds: number,
): Promise<{ events: number; rebuild: number[]; readOnly: number[]; startup: number }> {
  return parseCheckedOrThrow(
    ReplayOutputSchema,
    await runScript(
      'bench/replay-child.ts',
      [String(rounds)],
      { DATA_DIR: dataDir, EVENTSTORE_URL: eventStoreUrl },
      true,
      REBUILD_NODE_FLAGS,
    ),
    'The rebuild process’s output',
  );
}

/**
 * `npm run bench` replay-postgres (issue 50): the replay benchmark's log (1,000,000 events x
 * scale) in PostgreSQL (EVENTSTORE_URL, a fresh schema, dropped after), rebuilt as
 * `npm run rebuild` does into the embedded read models of an empty DATA_DIR, against reading the
 * same events alone through readAll pages; the same two on the SQLite log it was copied from.
 */
export async function replayPostgresBenchmark(options: BenchOptions): Promise<BenchResult> {
  const base = process.env.PG_EVENTSTORE_URL;
  if (!base)
    return skipped(
      NAME,
      TITLE,
      'PG_EVENTSTORE_URL unset (a postgres:// URL of a database the benchmark may make a schema in)',
    );
  const units = Math.ceil(scaled(options, 1_000_000, 1000) / 10);
  const schema = `bench_replay_${randomBytes(6).toString('hex')}`;
  const logUrl = new URL(base);
  logUrl.searchParams.set('schema', schema);
  const sqliteDir = tempDataDir('replay-sqlite');
  const pgDir = tempDataDir('replay-postgres');
  try {
    await importAdmin(sqliteDir.dir);
    const log = new EventLogWriter(sqliteDir.dir);
    writeMixedLog(log, units);
    log.close();
    const copyBegan = performance.now();
    const copied = await copyLog(join(sqliteDir.dir, 'events.sqlite'), base, schema);
    const copySeconds = (performance.now() - copyBegan) / 1000;

    const onPostgres = await replay(pgDir.dir, logUrl.toString(), options.rounds);
    const onSqlite = await replay(sqliteDir.dir, '', options.rounds);
    if (onPostgres.events !== copied || onSqlite.events !== copied)
      throw new Error(
        `the logs disagree: ${copied} copied, ${onPostgres.events} on PostgreSQL, ${onSqlite.events} on SQLite`,
      );
    const figures: Figure[] = [
      figure('rebuild from PostgreSQL', round(median(onPostgres.rebuild)), 'events/s', {
        baseline: { value: round(median(onPostgres.readOnly)), unit: 'events/s', label: 'readAll pages alone' },
        rounds: onPostgres.rebuild.map((r) => round(r)),
      }),
      figure('read PostgreSQL log alone', round(median(onPostgres.readOnly)), 'events/s', {
        rounds: onPostgres.readOnly.map((r) => round(r)),
      }),
      figure('start-up replay from PostgreSQL', round(onPostgres.startup), 'events/s'),
      figure('rebuild from SQLite', round(median(onSqlite.rebuild)), 'events/s', {
        baseline: { value: round(median(onSqlite.readOnly)), unit: 'events/s', label: 'readAll pages alone' },
        rounds: onSqlite.rebuild.map((r) => round(r)),
      }),
      figure('bulk copy into PostgreSQL (setup)', round(copied / copySeconds), 'events/s'),
    ];
    return {
      name: NAME,
      title: `${TITLE} (${copied} events)`,
      status: 'ran',
      setup: { events: copied, rounds: options.rounds, copy_batch: COPY_BATCH },
      figures,
    };
  } finally {
    const client = new pg.Client({ connectionString: base });
    await client
      .connect()
      .then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))
      .catch(() => undefined)
      .finally(() => client.end().catch(() => undefined));
    pgDir.cleanup();
    sqliteDir.cleanup();
  }
}
