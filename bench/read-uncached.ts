import { Type } from '@sinclair/typebox';
import { checkedOrThrow } from '../infra/checked-json.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitForIndexOutbox } from './content-server.js';
import { BENCH_ADMIN, BENCH_SITE, tempDataDir, writeBlogPosts } from './datasets.js';
import { EventLogWriter } from './event-log.js';
import { requireClean, runLoadOn, type ServedLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { runScript, startAppServer, startProcess, type RunningProcess } from './processes.js';
import { figure, type BenchResult, type Figure } from './report.js';
import { alternateRounds, median, round } from './stats.js';

/** Replaced by the load generator with a fresh id per request: every request is a URL never asked before. */
const ID = '[<id>]';
/** Issue 53: visitors' reads, 20 at a time. */
const CONNECTIONS = 20;
const CATEGORIES = 10;
const TAGS = 40;
/** Headers worth copying to the baseline: those that shape the bytes on the wire. */
const COPIED_HEADERS = ['content-type', 'link', 'platform-total-results'];
/** The share of posts a common word is in (issue 53: about 2.5%). */
const COMMON_SHARE = 0.025;

interface ReadCase {
  name: string;
  /** The path with a cache-busting parameter (`_`, which no route reads). */
  path: string;
  /** The share of bare Fastify's req/s it must reach (issue 53). */
  target?: number;
}

/**
 * A DATA_DIR with the admin, two sites, `items` public items over them, and `posts` published
 * posts in CATEGORIES categories, each with one of TAGS tags.
 */
async function dataDir(posts: number, items: number): Promise<{ dir: string; cleanup(): void }> {
  const data = tempDataDir('read-uncached');
  try {
    mkdirSync(data.dir, { recursive: true });
    const fixture = {
      users: [BENCH_ADMIN],
      sites: [BENCH_SITE, { id: 2, slug: 'annex', title: 'Annex' }],
      items: Array.from({ length: items }, (_, i) => ({
        id: i + 1,
        title: `Item ${i + 1}`,
        description: `A described object, number ${i + 1}.`,
        site_ids: [1 + (i % 2)],
        is_public: true,
      })),
    };
    const file = join(data.dir, 'fixture.json');
    writeFileSync(file, JSON.stringify(fixture));
    await runScript('bin/import.ts', [file], { DATA_DIR: data.dir });
    const log = new EventLogWriter(data.dir);
    writeBlogPosts(log, posts, { contentWords: 80, taxonomy: { categories: CATEGORIES, tags: TAGS } });
    log.close();
    return data;
  } catch (error) {
    data.cleanup();
    throw error;
  }
}

async function total(url: string): Promise<number> {
  const response = await fetch(url);
  await response.arrayBuffer();
  return Number(response.headers.get('platform-total-results') ?? 'NaN');
}

/** A word in about COMMON_SHARE of the posts, and one in the fewest (at least one), from the posts' own text. */
async function searchWords(base: string, posts: number): Promise<{ common: string; rare: string }> {
  // The platform's representation: its fields are `o:`-prefixed.
  const listed = checkedOrThrow(
    Type.Array(Type.Object({ 'o:content': Type.String() })),
    await (await fetch(`${base}/api/blog_posts?per_page=20`)).json(),
    'GET /api/blog_posts’s answer',
  );
  const words = [
    ...new Set(
      listed.flatMap((post) =>
        post['o:content']
          .replace(/<[^>]+>/g, ' ')
          .split(/[^a-z]+/i)
          .filter((w) => w.length >= 6),
      ),
    ),
  ].slice(0, 80);
  const totals: [string, number][] = [];
  for (const word of words) totals.push([word, await total(`${base}/api/blog_posts?per_page=1&search=${word}`)]);
  const byGap = [...totals].sort(
    (a, b) => Math.abs(a[1] - posts * COMMON_SHARE) - Math.abs(b[1] - posts * COMMON_SHARE),
  );
  const byCount = totals.filter(([, n]) => n >= 1).sort((a, b) => a[1] - b[1]);
  if (!byGap[0] || !byCount[0]) throw new Error('no search word found in the posts');
  return { common: byGap[0][0], rare: byCount[0][0] };
}

/**
 * Issue 53 item 1: the reads no cache serves. Each case is asked with a new URL every request
 * (an unused `_` parameter), at 20 connections, beside bare Fastify answering the bytes and
 * headers the server answered for it; req/s, p50 and the server's CPU per request, rounds
 * alternating. A common word's search is also timed at one connection (p50 <= 2 ms).
 */
export async function readUncachedBenchmark(options: BenchOptions): Promise<BenchResult> {
  const posts = scaled(options, 10_000, 40);
  const items = scaled(options, 2_000, 20);
  const data = await dataDir(posts, items);
  const app = await startAppServer(data.dir, { CHATBOT_SENTENCE_MODEL: 'off' });
  try {
    await waitForIndexOutbox(data.dir);
    const { common, rare } = await searchWords(app.url, posts);
    const cases: ReadCase[] = [
      { name: 'list of 10', path: `/api/blog_posts?per_page=10&_=${ID}`, target: 0.4 },
      { name: 'page 200', path: `/api/blog_posts?per_page=10&page=${Math.min(200, posts / 10)}&_=${ID}` },
      { name: 'tag filter', path: `/api/blog_posts?per_page=10&tag_slug=topic-7&_=${ID}`, target: 0.3 },
      { name: 'category filter', path: `/api/blog_posts?per_page=10&category_slug=category-3&_=${ID}`, target: 0.3 },
      {
        name: `search, common word (${common})`,
        path: `/api/blog_posts?per_page=10&search=${common}&_=${ID}`,
        target: 0.2,
      },
      { name: `search, rare word (${rare})`, path: `/api/blog_posts?per_page=10&search=${rare}&_=${ID}` },
      { name: 'items of a site', path: `/api/items?site_id=1&per_page=10&_=${ID}` },
      { name: 'one post', path: `/api/blog_posts/${Math.ceil(posts / 2)}?_=${ID}`, target: 0.5 },
    ];
    const figures: Figure[] = [];
    const setup: Record<string, unknown> = { posts, items, connections: CONNECTIONS, duration_s: options.duration };
    for (const read of cases) figures.push(...(await measureCase(app, read, data.dir, options)));
    const oneConnection: ServedLoad[] = [];
    for (let i = 0; i < options.rounds; i++)
      oneConnection.push(
        requireClean(
          await runLoadOn(app.pid, {
            url: app.url,
            pathTemplate: `/api/blog_posts?per_page=10&search=${common}&_=${ID}`,
            connections: 1,
            durationSeconds: options.duration,
          }),
          'search at one connection',
        ),
      );
    figures.push(
      figure(`search, common word, one connection: p50`, median(oneConnection.map((r) => r.latencyP50)), 'ms', {
        target: { op: '<=', value: 2 },
      }),
    );
    setup.common_word = common;
    setup.rare_word = rare;
    return {
      name: 'read-uncached',
      title: 'reads no cache serves, beside bare Fastify',
      status: 'ran',
      setup,
      figures,
    };
  } finally {
    await app.stop();
    data.cleanup();
  }
}

/** One read at 20 connections, a new URL each request, alternated with bare Fastify serving its bytes. */
async function measureCase(app: RunningProcess, read: ReadCase, dir: string, options: BenchOptions): Promise<Figure[]> {
  const sample = read.path.split(ID).join('sample');
  const response = await fetch(`${app.url}${sample}`);
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`${sample} answered ${response.status}: ${body.toString()}`);
  const headers = Object.fromEntries(
    COPIED_HEADERS.flatMap((h) => (response.headers.get(h) ? [[h, response.headers.get(h) as string]] : [])),
  );
  writeFileSync(join(dir, 'bare-body'), body);
  writeFileSync(join(dir, 'bare-headers.json'), JSON.stringify(headers));
  const bare = await startProcess(
    'bench/bare-server.ts',
    [join(dir, 'bare-body'), join(dir, 'bare-headers.json')],
    {},
    '/',
  );
  try {
    const load = (server: RunningProcess, what: string) => async (): Promise<ServedLoad> =>
      requireClean(
        await runLoadOn(server.pid, {
          url: server.url,
          pathTemplate: read.path,
          connections: CONNECTIONS,
          durationSeconds: options.duration,
        }),
        what,
      );
    const rounds = await alternateRounds(options.rounds, load(app, read.name), load(bare, 'bare route'));
    const rate = median(rounds.subject.map((r) => r.requestsPerSecond));
    const bareRate = median(rounds.baseline.map((r) => r.requestsPerSecond));
    return [
      figure(`${read.name}: req/s ratio`, round(rate / bareRate, 3), 'x', {
        baseline: { value: round(bareRate), unit: 'req/s', label: 'bare fastify, same bytes' },
        ...(read.target ? { target: { op: '>=' as const, value: read.target } } : {}),
      }),
      figure(`${read.name}: req/s`, round(rate), 'req/s', {
        rounds: rounds.subject.map((r) => round(r.requestsPerSecond)),
      }),
      figure(`${read.name}: p50`, median(rounds.subject.map((r) => r.latencyP50)), 'ms', {
        baseline: { value: median(rounds.baseline.map((r) => r.latencyP50)), unit: 'ms', label: 'bare p50' },
      }),
      figure(
        `${read.name}: server CPU per request`,
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
    ];
  } finally {
    await bare.stop();
  }
}
