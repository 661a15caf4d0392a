import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Type } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { BENCH_ADMIN, BENCH_SITE, keyQuery, tempDataDir } from './datasets.js';
import { UNLIMITED_CHATBOT } from './content-server.js';
import { requireClean, runLoadOn, type ServedLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { EMBEDDED_ENV, runScript, startAppServer, type RunningProcess } from './processes.js';
import { figure, skipped, type BenchResult, type Figure } from './report.js';
import { stackSkipReason } from './stack.js';
import { alternateRounds, median, percentile, round } from './stats.js';
import { TextGenerator } from './text.js';

const NAME = 'stack-postgres';
const TITLE = 'POST /api/blog_posts with the log on PostgreSQL beside SQLite; read-your-write across two hosts';

/** Why the benchmark cannot run here: the stack's engines, and PG_EVENTSTORE_URL for the log. */
export function stackPostgresSkipReason(env: NodeJS.ProcessEnv = process.env): string | null {
  return (
    stackSkipReason(env) ??
    (env.PG_EVENTSTORE_URL
      ? null
      : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database the benchmark may make a schema in)')
  );
}

/**
 * One production deployment's variables: its own MongoDB database and Elasticsearch index
 * (`name`), as `stack` makes them; servers given the same name share the read models.
 */
function deploymentEnv(name: string): NodeJS.ProcessEnv {
  const mongo = new URL(process.env.MONGO_URL ?? '');
  mongo.pathname = `/${name}`;
  const env: NodeJS.ProcessEnv = {
    // The log in DATA_DIR unless the caller names one; files and questions there on both sides
    // (the stack's env file names PostgreSQL for all three).
    EVENTSTORE_URL: '',
    FILES_URL: '',
    QUESTION_LOG_URL: '',
    ...UNLIMITED_CHATBOT,
    CHATBOT_SENTENCE_MODEL: 'off',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    MONGO_URL: mongo.toString(),
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL,
    ELASTICSEARCH_INDEX: `chatbot-chunks-${name}`,
  };
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  return env;
}

async function onPostgres(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The benchmarks' admin and site, imported through the real CLI into the deployment's log. */
async function importAdminInto(dataDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const fixture = join(dataDir, 'bench-fixture.json');
  writeFileSync(fixture, JSON.stringify({ users: [BENCH_ADMIN], sites: [BENCH_SITE] }));
  await runScript('bin/import.ts', [fixture], { ...EMBEDDED_ENV, ...env, DATA_DIR: dataDir });
  rmSync(fixture);
}

const CreatedSchema = Type.Object({ 'o:id': Type.Number() });

interface ReadYourWrite {
  /** From sending the POST to A until B first answers the post's GET with 200. */
  fromSend: number[];
  /** From A's 201 until B's first 200. */
  fromAnswer: number[];
  /** GETs B answered 404 before its 200, over all writes. */
  misses: number;
}

/** `writes` posts created on A one after another, each polled on B (no pause) until it answers 200. */
async function readYourWrite(a: string, b: string, writes: number, body: () => string): Promise<ReadYourWrite> {
  const result: ReadYourWrite = { fromSend: [], fromAnswer: [], misses: 0 };
  for (let i = 0; i < writes; i++) {
    const sent = performance.now();
    const res = await fetch(`${a}/api/blog_posts?${keyQuery()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`a create on A answered ${res.status}: ${text.slice(0, 500)}`);
    const answered = performance.now();
    const id = parseCheckedOrThrow(CreatedSchema, text, 'A’s created post')['o:id'];
    for (let tries = 0; ; tries++) {
      const got = await fetch(`${b}/api/blog_posts/${id}?${keyQuery()}`);
      await got.arrayBuffer();
      if (got.status === 200) break;
      if (got.status !== 404) throw new Error(`B answered ${got.status} for post ${id}`);
      if (performance.now() - answered > 30_000) throw new Error(`B had not post ${id} 30 s after A created it`);
      result.misses++;
    }
    const seen = performance.now();
    result.fromSend.push(seen - sent);
    result.fromAnswer.push(seen - answered);
  }
  return result;
}

/**
 * `npm run bench` stack-postgres (issue 50): two production deployments (Kafka, MongoDB,
 * Elasticsearch, Redis when set), one with its log in PostgreSQL (EVENTSTORE_URL, a fresh schema
 * dropped after) and one on the SQLite log, `POST /api/blog_posts` in alternated rounds; then a
 * second server on the PostgreSQL deployment with a DATA_DIR of its own, as on a second host,
 * and the time from a create on the first to the post answering on the second. No target: the
 * figures are the baseline.
 */
export async function stackPostgresBenchmark(options: BenchOptions): Promise<BenchResult> {
  const reason = stackPostgresSkipReason();
  if (reason) return skipped(NAME, TITLE, reason);
  const base = process.env.PG_EVENTSTORE_URL as string;
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const logUrl = new URL(base);
  logUrl.searchParams.set('schema', schema);
  const sqliteName = `bench_${randomBytes(6).toString('hex')}`;
  const pgName = `bench_${randomBytes(6).toString('hex')}`;
  const sqliteEnv = deploymentEnv(sqliteName);
  const pgEnv: NodeJS.ProcessEnv = { ...deploymentEnv(pgName), EVENTSTORE_URL: logUrl.toString() };
  const dirs = [tempDataDir('stack-sqlite-log'), tempDataDir('stack-pg-a'), tempDataDir('stack-pg-b')];
  const [sqliteDir, dirA, dirB] = dirs;
  const servers: RunningProcess[] = [];
  const writes = scaled(options, 1_000, 20);
  try {
    await importAdminInto(sqliteDir.dir, sqliteEnv);
    await importAdminInto(dirA.dir, pgEnv);
    const sqliteSide = await startAppServer(sqliteDir.dir, sqliteEnv);
    servers.push(sqliteSide);
    const hostA = await startAppServer(dirA.dir, pgEnv);
    servers.push(hostA);

    const text = new TextGenerator(17);
    const postBody = JSON.stringify({
      title: 'Stack bench post [<id>]',
      excerpt: text.sentence(12),
      content: `<p>${text.sentence(80)}</p>`,
    });
    const load = (server: RunningProcess, what: string) => async (): Promise<ServedLoad> =>
      requireClean(
        await runLoadOn(server.pid, {
          url: `${server.url}/api/blog_posts?${keyQuery()}`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: postBody,
          connections: options.connections,
          durationSeconds: options.duration,
        }),
        what,
      );
    const rounds = await alternateRounds(
      options.rounds,
      load(hostA, 'write (PostgreSQL log)'),
      load(sqliteSide, 'write (SQLite log)'),
    );
    const rate = (side: ServedLoad[]) => round(median(side.map((r) => r.requestsPerSecond)));
    const p = (side: ServedLoad[], key: 'latencyP50' | 'latencyP99') => median(side.map((r) => r[key]));
    const cpu = (side: ServedLoad[]) => round(median(side.map((r) => r.serverCpuMicrosPerRequest)), 0);
    const figures: Figure[] = [
      figure('write req/s, PostgreSQL log', rate(rounds.subject), 'req/s', {
        baseline: { value: rate(rounds.baseline), unit: 'req/s', label: 'SQLite log' },
        rounds: rounds.subject.map((r) => round(r.requestsPerSecond)),
      }),
      figure('write p50, PostgreSQL log', p(rounds.subject, 'latencyP50'), 'ms', {
        baseline: { value: p(rounds.baseline, 'latencyP50'), unit: 'ms', label: 'SQLite log' },
      }),
      figure('write p99, PostgreSQL log', p(rounds.subject, 'latencyP99'), 'ms', {
        baseline: { value: p(rounds.baseline, 'latencyP99'), unit: 'ms', label: 'SQLite log' },
      }),
      figure('server CPU per create, PostgreSQL log', cpu(rounds.subject), 'us', {
        baseline: { value: cpu(rounds.baseline), unit: 'us', label: 'SQLite log' },
      }),
    ];

    // The second host: the same deployment (log, read models, topic) on a DATA_DIR of its own.
    const hostB = await startAppServer(dirB.dir, pgEnv);
    servers.push(hostB);
    let n = 0;
    const body = () =>
      JSON.stringify({ title: `Read-your-write ${++n}`, excerpt: 'x', content: '<p>y</p>', status: 'published' });
    await readYourWrite(hostA.url, hostB.url, 5, body); // warm-up
    const ryw = await readYourWrite(hostA.url, hostB.url, writes, body);
    figures.push(
      figure('read-your-write A to B p50, from the POST sent', round(percentile(ryw.fromSend, 50), 3), 'ms'),
      figure('read-your-write A to B p99, from the POST sent', round(percentile(ryw.fromSend, 99), 3), 'ms'),
      figure('read-your-write A to B p50, from A’s 201', round(percentile(ryw.fromAnswer, 50), 3), 'ms'),
      figure('read-your-write A to B p99, from A’s 201', round(percentile(ryw.fromAnswer, 99), 3), 'ms'),
      figure('read-your-write: 404s on B before its 200', ryw.misses, 'GETs'),
    );
    return {
      name: NAME,
      title: `${TITLE} (production: Kafka, MongoDB, Elasticsearch${sqliteEnv.REDIS_URL ? ', Redis' : ''})`,
      status: 'ran',
      setup: {
        connections: options.connections,
        duration_s: options.duration,
        rounds: options.rounds,
        read_your_write_writes: writes,
      },
      figures,
    };
  } finally {
    for (const server of servers) await server.stop();
    for (const env of [sqliteEnv, pgEnv])
      await fetch(`${env.ELASTICSEARCH_URL}/${env.ELASTICSEARCH_INDEX}`, { method: 'DELETE' }).catch(() => undefined);
    await onPostgres(base, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    for (const dir of dirs) dir.cleanup();
  }
}
