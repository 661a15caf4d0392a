import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { waitForIndexOutbox } from './content-server.js';
import { blogDataDir } from './datasets.js';
import { requireClean, runLoadOn, type ServedLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { startAppServer, startProcess } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { alternateRounds, median, round } from './stats.js';

const PATH = '/api/blog_posts?per_page=10';
/** Warm-up rounds of each side before the measured ones. */
const READ_WARM_UPS = 3;
/** Headers worth copying to the baseline: those that shape the bytes on the wire. */
const COPIED_HEADERS = ['content-type', 'link', 'platform-total-results'];

/** 1. GET /api/blog_posts?per_page=10 over 10,000 posts, against a bare route with the same bytes. */
export async function readBenchmark(options: BenchOptions): Promise<BenchResult> {
  const posts = scaled(options, 10_000, 20);
  const data = await blogDataDir('read', posts, { contentWords: 80 });
  // Published posts are indexed by the chatbot in the background at start: measure after that,
  // by the word features alone (the sentence model would take half an hour for 10,000 posts on
  // two cores, and no list request touches it), as the search and memory benchmarks do.
  const app = await startAppServer(data.dir, { CHATBOT_SENTENCE_MODEL: 'off' });
  await waitForIndexOutbox(data.dir);
  let bare: Awaited<ReturnType<typeof startProcess>> | null = null;
  try {
    const response = await fetch(`${app.url}${PATH}`);
    const body = Buffer.from(await response.arrayBuffer());
    const listed =
      response.status === 200
        ? parseCheckedOrThrow(Type.Array(Type.Unknown()), body.toString(), `${PATH}'s answer`)
        : [];
    if (response.status !== 200 || listed.length !== 10)
      throw new Error(`${PATH} answered ${response.status} with ${listed.length} posts`);
    const headers = Object.fromEntries(
      COPIED_HEADERS.flatMap((h) => (response.headers.get(h) ? [[h, response.headers.get(h) as string]] : [])),
    );
    writeFileSync(join(data.dir, 'bare-body'), body);
    writeFileSync(join(data.dir, 'bare-headers.json'), JSON.stringify(headers));
    bare = await startProcess(
      'bench/bare-server.ts',
      [join(data.dir, 'bare-body'), join(data.dir, 'bare-headers.json')],
      {},
      PATH,
    );

    const load = (server: { pid: number; url: string }, what: string) => async (): Promise<ServedLoad> =>
      requireClean(
        await runLoadOn(server.pid, {
          url: `${server.url}${PATH}`,
          connections: options.connections,
          durationSeconds: options.duration,
        }),
        what,
      );
    // The server comes out of indexing every post: a single warm-up round left the measured
    // rounds still climbing (28,988, 33,436, 38,922 req/s, the bare route level). Both sides
    // get three, and the figure compares them warm.
    const rounds = await alternateRounds(options.rounds, load(app, 'read'), load(bare, 'bare route'), READ_WARM_UPS);
    const appRate = median(rounds.subject.map((r) => r.requestsPerSecond));
    const bareRate = median(rounds.baseline.map((r) => r.requestsPerSecond));
    return {
      name: 'read',
      title: `GET ${PATH} over ${posts} posts`,
      status: 'ran',
      setup: {
        posts,
        connections: options.connections,
        duration_s: options.duration,
        rounds: options.rounds,
        body_bytes: body.length,
      },
      figures: [
        figure('req/s ratio', round(appRate / bareRate, 3), 'x', {
          baseline: { value: round(bareRate), unit: 'req/s', label: 'bare fastify, same bytes' },
          target: { op: '>=', value: 0.6 },
        }),
        figure('req/s', round(appRate), 'req/s', { rounds: rounds.subject.map((r) => round(r.requestsPerSecond)) }),
        figure('latency p50', median(rounds.subject.map((r) => r.latencyP50)), 'ms', {
          baseline: { value: median(rounds.baseline.map((r) => r.latencyP50)), unit: 'ms', label: 'bare p50' },
        }),
        figure('latency p99', median(rounds.subject.map((r) => r.latencyP99)), 'ms', {
          baseline: { value: median(rounds.baseline.map((r) => r.latencyP99)), unit: 'ms', label: 'bare p99' },
        }),
        // The server's own cost, which the ratio mixes with the machine's: on a day of fast system
        // calls the bare route gains more than the server does (docs/perf-history.md).
        figure(
          'server CPU per request',
          round(median(rounds.subject.map((r) => r.serverCpuMicrosPerRequest)), 1),
          'us',
          {
            baseline: {
              value: round(median(rounds.baseline.map((r) => r.serverCpuMicrosPerRequest)), 1),
              unit: 'us',
              label: 'bare fastify',
            },
          },
        ),
      ],
    };
  } finally {
    await bare?.stop();
    await app.stop();
    data.cleanup();
  }
}
