import { Type } from '@sinclair/typebox';
import { checkedOrThrow } from '../infra/checked-json.js';
import { cpSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { blogDataDir, keyQuery, tempDataDir } from './datasets.js';
import { UNLIMITED_CHATBOT, waitForIndexOutbox } from './content-server.js';
import { requireClean, runLoadOn, type ServedLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { EMBEDDED_ENV, sleep, startAppServer, type RunningProcess } from './processes.js';
import { figure, skipped, type BenchResult, type Figure } from './report.js';
import { alternateRounds, median, round } from './stats.js';
import { TextGenerator } from './text.js';

const NAME = 'stack';
const TITLE = 'read, write and chatbot search on the production adapters beside the embedded ones';
const READ = '/api/blog_posts?per_page=10';
const SEARCH = '/chatbot/api/search';
/** The production engines the figures are about; REDIS_URL is taken too when set. */
const ENGINES = ['KAFKA_BROKERS', 'MONGO_URL', 'ELASTICSEARCH_URL'] as const;

/** Why the benchmark cannot run here, or null when every engine's variable is set. */
export function stackSkipReason(env: NodeJS.ProcessEnv = process.env): string | null {
  const missing = ENGINES.filter((name) => !env[name]);
  return missing.length === 0
    ? null
    : `the production engines are not configured (${missing.join(', ')} unset): run \`npm run stack:up\` and source its env file (stack/README.md)`;
}

/**
 * The production variables of one benchmark deployment: its own MongoDB database and
 * Elasticsearch index (Kafka topic, groups and Redis keys follow its DATA_DIR), so runs never
 * read each other's documents.
 */
function productionEnv(): NodeJS.ProcessEnv {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const mongo = new URL(process.env.MONGO_URL ?? '');
  mongo.pathname = `/${name}`;
  const env: NodeJS.ProcessEnv = {
    // The log, files and questions stay in DATA_DIR even from a shell that sourced the stack's
    // env file (which names PostgreSQL for them): stack-postgres measures the log there.
    EVENTSTORE_URL: '',
    FILES_URL: '',
    QUESTION_LOG_URL: '',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    MONGO_URL: mongo.toString(),
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL,
    ELASTICSEARCH_INDEX: `chatbot-chunks-${name}`,
  };
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  return env;
}

async function totalPosts(url: string): Promise<number> {
  const res = await fetch(`${url}${READ}`);
  await res.arrayBuffer();
  return res.status === 200 ? Number(res.headers.get('platform-total-results')) : -1;
}

/** Every post is a chunk of the Elasticsearch index (one chunk a post) and a document of MongoDB's read model. */
async function waitForProduction(
  url: string,
  env: NodeJS.ProcessEnv,
  posts: number,
  timeoutMs = 600_000,
): Promise<void> {
  const began = Date.now();
  for (;;) {
    const count = await fetch(`${env.ELASTICSEARCH_URL}/${env.ELASTICSEARCH_INDEX}/_count`)
      .then(async (res) =>
        res.status === 200
          ? checkedOrThrow(Type.Object({ count: Type.Number() }), await res.json(), 'Elasticsearch’s count').count
          : 0,
      )
      .catch(() => 0);
    if (count >= posts && (await totalPosts(url)) === posts) return;
    if (Date.now() - began > timeoutMs)
      throw new Error(`the production side had ${count} chunks of ${posts} after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

interface Side {
  server: RunningProcess;
}

/**
 * `npm run bench` stack mode (issue 37): the same posts served by two servers, one on the
 * embedded adapters (SQLite log, read models and vector index) and one on Kafka, MongoDB and
 * Elasticsearch (Redis too when REDIS_URL is set; the log stays SQLite), measured round by round
 * in turn. No target: the figures are the baseline for the production adapters' next step.
 */
export async function stackBenchmark(options: BenchOptions): Promise<BenchResult> {
  const reason = stackSkipReason();
  if (reason) return skipped(NAME, TITLE, reason);
  const posts = scaled(options, 10_000, 20);
  const source = await blogDataDir('stack', posts, { contentWords: 80 });
  const productionDir = tempDataDir('stack-production');
  const prodEnv = productionEnv();
  const sides: Side[] = [];
  try {
    cpSync(source.dir, productionDir.dir, { recursive: true });
    // The embedded side blanks every production variable the calling shell exports; neither side
    // limits the chatbot's rate (10 a minute by default, which a search round passes at once). Word features only, as the read, search and memory benchmarks run: the sentence model
    // would take most of the run to embed the posts on two cores.
    const embedded: Side = {
      server: await startAppServer(source.dir, {
        ...EMBEDDED_ENV,
        ...UNLIMITED_CHATBOT,
        CHATBOT_SENTENCE_MODEL: 'off',
      }),
    };
    sides.push(embedded);
    await waitForIndexOutbox(source.dir);
    const production: Side = {
      server: await startAppServer(productionDir.dir, {
        ...prodEnv,
        ...UNLIMITED_CHATBOT,
        CHATBOT_SENTENCE_MODEL: 'off',
      }),
    };
    sides.push(production);
    await waitForProduction(production.server.url, prodEnv, posts);

    const load =
      (side: Side, what: string, path: string, extra: { method?: 'POST'; body?: string; connections: number }) =>
      async (): Promise<ServedLoad> =>
        requireClean(
          await runLoadOn(side.server.pid, {
            url: `${side.server.url}${path}`,
            method: extra.method ?? 'GET',
            headers: extra.method ? { 'content-type': 'application/json' } : {},
            body: extra.body,
            connections: extra.connections,
            durationSeconds: options.duration,
          }),
          what,
        );
    const text = new TextGenerator(13);
    const postBody = JSON.stringify({
      title: 'Stack bench post [<id>]',
      excerpt: text.sentence(12),
      content: `<p>${text.sentence(80)}</p>`,
    });
    const searchBody = JSON.stringify({ query: 'letters about the old river port [<id>]' });
    const measures = {
      read: { path: READ, connections: options.connections },
      search: { path: SEARCH, method: 'POST' as const, body: searchBody, connections: 1 },
      write: {
        path: `/api/blog_posts?${keyQuery()}`,
        method: 'POST' as const,
        body: postBody,
        connections: options.connections,
      },
    };
    const figures: Figure[] = [];
    for (const [what, measure] of Object.entries(measures)) {
      const rounds = await alternateRounds(
        options.rounds,
        load(production, `${what} (production)`, measure.path, measure),
        load(embedded, `${what} (embedded)`, measure.path, measure),
      );
      const rate = (side: ServedLoad[]) => round(median(side.map((r) => r.requestsPerSecond)));
      const p = (side: ServedLoad[], key: 'latencyP50' | 'latencyP99') => median(side.map((r) => r[key]));
      figures.push(
        figure(`${what} req/s`, rate(rounds.subject), 'req/s', {
          baseline: { value: rate(rounds.baseline), unit: 'req/s', label: 'embedded adapters' },
          rounds: rounds.subject.map((r) => round(r.requestsPerSecond)),
        }),
        figure(`${what} p50`, p(rounds.subject, 'latencyP50'), 'ms', {
          baseline: { value: p(rounds.baseline, 'latencyP50'), unit: 'ms', label: 'embedded p50' },
        }),
        figure(`${what} p99`, p(rounds.subject, 'latencyP99'), 'ms', {
          baseline: { value: p(rounds.baseline, 'latencyP99'), unit: 'ms', label: 'embedded p99' },
        }),
      );
    }
    return {
      name: NAME,
      title: `${TITLE} (${posts} posts; production: Kafka, MongoDB, Elasticsearch${prodEnv.REDIS_URL ? ', Redis' : ''})`,
      status: 'ran',
      setup: {
        posts,
        connections: options.connections,
        search_connections: 1,
        duration_s: options.duration,
        rounds: options.rounds,
      },
      figures,
    };
  } finally {
    for (const side of sides) await side.server.stop();
    await fetch(`${prodEnv.ELASTICSEARCH_URL}/${prodEnv.ELASTICSEARCH_INDEX}`, { method: 'DELETE' }).catch(
      () => undefined,
    );
    productionDir.cleanup();
    source.cleanup();
  }
}
