import { Type, type Static } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { blogSearchBenchmark } from './blog-search.js';
import { EnglishGenerator } from './english.js';
import { museum, startMuseumServer, type Museum } from './museum.js';
import type { BenchOptions } from './options.js';
import type { RunningProcess } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { median, percentile, round } from './stats.js';

const SEARCH = '/chatbot/api/search';
/** Items whose title is searched: the 100. */
const TITLE_PROBES = 100;

/** What the benchmark reads of the search's answer. */
const SearchAnswer = Type.Object({
  results: Type.Array(
    Type.Object({ resource_type: Type.String(), resource_id: Type.Number(), distance: Type.Number() }),
  ),
});

async function search(
  url: string,
  query: string,
  perPage = 10,
): Promise<{ answer: Static<typeof SearchAnswer>; ms: number }> {
  const began = performance.now();
  const response = await fetch(`${url}${SEARCH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, per_page: perPage }),
  });
  const text = await response.text();
  const ms = performance.now() - began;
  if (response.status !== 200) throw new Error(`${SEARCH} answered ${response.status}: ${text}`);
  return { answer: parseCheckedOrThrow(SearchAnswer, text, `${SEARCH}'s answer`), ms };
}

/** Deterministic picks of items whose title no other item has (a title shared by two cannot rank both first). */
function probeItems(m: Museum, count: number): number[] {
  const uses = new Map<string, number>();
  for (const title of m.titles) uses.set(title, (uses.get(title) ?? 0) + 1);
  const picked: number[] = [];
  for (let n = 0; picked.length < count && n < m.titles.length * 4; n++) {
    const id = 1 + ((n * 7919 + 17) % m.titles.length);
    if (uses.get(m.titles[id - 1]) === 1 && !picked.includes(id)) picked.push(id);
  }
  return picked;
}

/** The item's place among the results of its exact title (1 = first; per_page + 1 when not among them). */
async function titleRanks(url: string, m: Museum): Promise<number[]> {
  const ranks: number[] = [];
  for (const id of probeItems(m, TITLE_PROBES)) {
    const { answer } = await search(url, m.titles[id - 1], 50);
    const at = answer.results.findIndex((r) => r.resource_type === 'item' && r.resource_id === id);
    ranks.push(at < 0 ? 51 : at + 1);
  }
  return ranks;
}

/** Back-to-back searches, each a different question, for `seconds`: their latencies. */
async function searchFor(url: string, seconds: number, english: EnglishGenerator): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  let n = 0;
  while (performance.now() < end) times.push((await search(url, `${english.question()} [${n++}]`)).ms);
  return times;
}

/**
 * Issue 39, item 2, on a museum of 50,000 items, 50,000 media and 10,000 posts (words embedder):
 * - a restart, then search from the moment the server answers: p50 over the first minute (the
 *   embedded index reads its matrix meanwhile) against the p50 of the 20 s after it;
 * - each of 100 items (titles no other item has) searched by its exact title: how many come first;
 * - the blog list's text search over the museum's posts (blog-search.ts's needles).
 */
export async function museumSearchBenchmark(options: BenchOptions): Promise<BenchResult> {
  const m = await museum(options);
  let server: RunningProcess | null = null;
  try {
    const firstWindow = Math.max(10, Math.round(60 * Math.min(1, options.scale * 4)));
    const english = new EnglishGenerator(5);
    const firsts: number[] = [];
    const steadies: number[] = [];
    const firstRequests: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      await server?.stop();
      server = await startMuseumServer(m);
      const first = await searchFor(server.url, firstWindow, english);
      firstRequests.push(first[0]);
      firsts.push(percentile(first, 50));
      steadies.push(percentile(await searchFor(server.url, 20, english), 50));
    }
    if (!server) throw new Error('no round ran');
    const ranks = await titleRanks(server.url, m);
    const blog = await blogSearchBenchmark(options, { server, posts: m.posts });
    const firstP50 = median(firsts);
    const steadyP50 = median(steadies);
    return {
      name: 'museum',
      title: `museum of ${m.items} items, ${m.items} media, ${m.posts} posts: title rank, search from the start, blog search`,
      status: 'ran',
      setup: {
        items: m.items,
        posts: m.posts,
        rounds: options.rounds,
        first_window_s: firstWindow,
        index_seconds: round(m.indexSeconds, 1),
        embedder: 'words (CHATBOT_SENTENCE_MODEL=off)',
      },
      figures: [
        figure('exact title finds its item first', ranks.filter((r) => r === 1).length, `of ${ranks.length}`, {
          target: { op: '>=', value: ranks.length },
        }),
        figure('exact title: median rank (51 = not in the first 50)', median(ranks), 'rank'),
        figure(`search p50, first ${firstWindow} s after a restart`, round(firstP50), 'ms', {
          rounds: firsts.map((r) => round(r)),
        }),
        figure('search p50, the 20 s after', round(steadyP50), 'ms', { rounds: steadies.map((r) => round(r)) }),
        figure('first-window p50 / steady p50', round(firstP50 / steadyP50), 'x', { target: { op: '<=', value: 2 } }),
        figure('first search after a restart', round(median(firstRequests)), 'ms', {
          rounds: firstRequests.map((r) => round(r)),
        }),
        ...blog.figures.map((f) => ({ ...f, name: `blog search ${f.name}` })),
      ],
    };
  } finally {
    await server?.stop();
    m.cleanup();
  }
}
