import { Type, type Static } from '@sinclair/typebox';
import { checkedOrThrow } from '../infra/checked-json.js';
import type { ContentServer } from './content-server.js';
import { requireClean, runLoad } from './load.js';
import type { BenchOptions } from './options.js';
import { figure, type BenchResult } from './report.js';
import { median, round } from './stats.js';

const SEARCH = '/chatbot/api/search';

/** What the benchmark reads of the search's answer. */
const SearchAnswer = Type.Object({
  results: Type.Array(
    Type.Object({ resource_type: Type.String(), resource_id: Type.Number(), distance: Type.Number() }),
  ),
});

async function search(url: string, query: string): Promise<Static<typeof SearchAnswer>> {
  const response = await fetch(`${url}${SEARCH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  if (response.status !== 200) throw new Error(`${SEARCH} answered ${response.status}: ${await response.text()}`);
  return checkedOrThrow(SearchAnswer, await response.json(), `${SEARCH}'s answer`);
}

/**
 * 4. /chatbot/api/search over the content server's chunks: p50 and p99 latency of one client
 * at a time (latency, not throughput), every query different so none is answered from a cache.
 */
export async function searchBenchmark(options: BenchOptions, content: ContentServer): Promise<BenchResult> {
  const { url } = content.server;
  // Exactness check: a post's own title and text (what its one chunk was embedded from) find
  // that post first, at distance about 0. An approximate index could miss it.
  const probeId = Math.ceil(content.posts / 2);
  const post = checkedOrThrow(
    Type.Object({ 'o:title': Type.String(), 'o:excerpt': Type.String(), 'o:content': Type.String() }),
    await (await fetch(`${url}/api/blog_posts/${probeId}`)).json(),
    `GET /api/blog_posts/${probeId}’s answer`,
  );
  const chunkText = `${post['o:excerpt']} ${post['o:content'].replace(/<[^>]*>/g, ' ')}`.replace(/\s+/g, ' ').trim();
  const probe = await search(url, `${post['o:title']}\n${chunkText}`.slice(0, 500));
  if (probe.results.length === 0) throw new Error('search found nothing');
  const rounds = [];
  await runLoad({
    url: `${url}${SEARCH}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'old city map [<id>]' }),
    connections: 1,
    durationSeconds: 1,
  });
  for (let i = 0; i < options.rounds; i++) {
    rounds.push(
      requireClean(
        await runLoad({
          url: `${url}${SEARCH}`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'letters about the old river port [<id>]' }),
          connections: 1,
          durationSeconds: options.duration,
        }),
        'search',
      ),
    );
  }
  const top = probe.results[0];
  return {
    name: 'search',
    title: `POST ${SEARCH} over ${content.posts} chunks`,
    status: 'ran',
    setup: {
      chunks: content.posts,
      connections: 1,
      duration_s: options.duration,
      rounds: options.rounds,
      index_seconds: round(content.indexSeconds, 1),
    },
    figures: [
      figure('latency p50', median(rounds.map((r) => r.latencyP50)), 'ms', {
        target: { op: '<=', value: 10 },
        rounds: rounds.map((r) => r.latencyP50),
      }),
      figure('latency p99', median(rounds.map((r) => r.latencyP99)), 'ms', { rounds: rounds.map((r) => r.latencyP99) }),
      figure('searches/s', round(median(rounds.map((r) => r.requestsPerSecond))), 'req/s'),
      figure(
        'own text finds its post first',
        top.resource_type === 'blog_post' && top.resource_id === probeId ? 1 : 0,
        'bool',
        { target: { op: '>=', value: 1 } },
      ),
    ],
  };
}
