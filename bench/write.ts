import { join } from 'node:path';
import { importAdmin, keyQuery, tempDataDir } from './datasets.js';
import { requireClean, runLoadOn, type ServedLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { startAppServer } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { rawInsertsPerSecond } from './sqlite-inserts.js';
import { alternateRounds, median, round } from './stats.js';
import { TextGenerator } from './text.js';

/** The second, untargeted load runs this many times the clients of the first. */
const MANY_CLIENTS_FACTOR = 5;

/**
 * 2. Create-post commands end to end (validate, allocate the id, append, project, answer 201)
 * per second under concurrent clients, against raw single-row SQLite inserts per second.
 */
export async function writeBenchmark(options: BenchOptions): Promise<BenchResult> {
  const data = tempDataDir('write');
  try {
    await importAdmin(data.dir);
    const app = await startAppServer(data.dir);
    try {
      const text = new TextGenerator(11);
      // [<id>] gets a fresh id per request, so every post has its own title and slug.
      const body = JSON.stringify({
        title: 'Bench post [<id>]',
        excerpt: text.sentence(12),
        content: `<p>${text.sentence(80)}</p>`,
      });
      const probe = await fetch(`${app.url}/api/blog_posts?${keyQuery()}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body.replace('[<id>]', 'probe'),
      });
      if (probe.status !== 201) throw new Error(`POST /api/blog_posts answered ${probe.status}: ${await probe.text()}`);
      const payload = JSON.stringify({ id: 1, fields: JSON.parse(body) as unknown });
      const appRound = (connections: number) => async (): Promise<ServedLoad> =>
        requireClean(
          await runLoadOn(app.pid, {
            url: `${app.url}/api/blog_posts?${keyQuery()}`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
            connections,
            durationSeconds: options.duration,
          }),
          'create post',
        );
      const rawRound = async (): Promise<number> =>
        rawInsertsPerSecond(join(data.dir, 'raw-inserts.sqlite'), options.duration, payload);
      const rounds = await alternateRounds(options.rounds, appRound(options.connections), rawRound);
      const appRate = median(rounds.subject.map((r) => r.requestsPerSecond));
      const rawRate = median(rounds.baseline);
      // Shown beside the target: how far group commits carry throughput with many more clients.
      const manyClients = options.connections * MANY_CLIENTS_FACTOR;
      const many = await alternateRounds(options.rounds, appRound(manyClients), rawRound);
      const manyRate = median(many.subject.map((r) => r.requestsPerSecond));
      const manyRawRate = median(many.baseline);
      return {
        name: 'write',
        title: 'create-post commands end to end vs raw SQLite inserts',
        status: 'ran',
        setup: {
          connections: options.connections,
          many_clients: manyClients,
          duration_s: options.duration,
          rounds: options.rounds,
        },
        figures: [
          figure('commands/s ratio', round(appRate / rawRate, 4), 'x', {
            baseline: { value: round(rawRate), unit: 'inserts/s', label: 'raw better-sqlite3, WAL' },
            target: { op: '>=', value: 0.17 },
          }),
          figure('commands/s', round(appRate), 'commands/s', {
            rounds: rounds.subject.map((r) => round(r.requestsPerSecond)),
          }),
          figure('latency p50', median(rounds.subject.map((r) => r.latencyP50)), 'ms'),
          figure('latency p99', median(rounds.subject.map((r) => r.latencyP99)), 'ms'),
          // The server's own cost (every thread), which the ratio mixes with the machine's speed at
          // system calls: the raw inserts gain far more than the server on a day of fast ones.
          figure(
            'server CPU per create',
            round(median(rounds.subject.map((r) => r.serverCpuMicrosPerRequest)), 1),
            'us',
            {
              baseline: { value: round(1_000_000 / rawRate, 1), unit: 'us', label: 'one raw insert (single thread)' },
            },
          ),
          figure(`commands/s ratio, ${manyClients} clients`, round(manyRate / manyRawRate, 4), 'x', {
            baseline: { value: round(manyRawRate), unit: 'inserts/s', label: 'raw better-sqlite3, WAL' },
          }),
          figure(`commands/s, ${manyClients} clients`, round(manyRate), 'commands/s', {
            rounds: many.subject.map((r) => round(r.requestsPerSecond)),
          }),
          figure(`latency p50, ${manyClients} clients`, median(many.subject.map((r) => r.latencyP50)), 'ms'),
        ],
      };
    } finally {
      await app.stop();
    }
  } finally {
    data.cleanup();
  }
}
