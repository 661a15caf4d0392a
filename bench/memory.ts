import type { ContentServer } from './content-server.js';
import type { BenchOptions } from './options.js';
import { memoryOf, sleep } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { round } from './stats.js';

const MB = 2 ** 20;
/** Rounds of `exercise`, each four requests. */
const VISITS = 100;

/** What a site's visitors ask of a server: list pages, searches of the list, chatbot searches. */
async function exercise(url: string, posts: number): Promise<void> {
  const get = async (path: string) => (await fetch(`${url}${path}`)).arrayBuffer();
  for (let n = 0; n < VISITS; n++) {
    await get(`/api/blog_posts?per_page=10&page=${1 + ((n * 37) % 50)}`);
    await get(`/api/blog_posts/${1 + ((n * 7919) % posts)}`);
    await get(
      `/api/blog_posts?per_page=10&search=${['museum', 'river', 'station', 'history', 'music'][n % 5]}${n % 7 === 0 ? '' : 's'}`,
    );
    const search = await fetch(`${url}/chatbot/api/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `old maps of the river port ${n}` }),
    });
    if (search.status !== 200) throw new Error(`/chatbot/api/search answered ${search.status}`);
    await search.arrayBuffer();
  }
}

/**
 * 6. Resident memory of the server holding the content server's posts and chunks: first the
 * server that indexed them all since its start (after the benchmarks before this one), shown;
 * then, the target, a server started again on the same DATA_DIR (read models and index
 * persist, nothing to catch up) after visitors' requests of every kind. The first keeps what V8
 * grew its heap to while indexing 100,000 posts; the second is what holding them costs.
 */
export async function memoryBenchmark(_options: BenchOptions, content: ContentServer): Promise<BenchResult> {
  // Let the last requests' garbage settle before reading the figure.
  await sleep(2000);
  const indexing = memoryOf(content.server.pid);
  await content.restart();
  await exercise(content.server.url, content.posts);
  await sleep(2000);
  const held = memoryOf(content.server.pid);
  return {
    name: 'memory',
    title: `server RSS holding ${content.posts} posts and ${content.posts} chunks`,
    status: 'ran',
    setup: { posts: content.posts, chunks: content.posts, requests_after_restart: VISITS * 4 },
    figures: [
      figure('RSS, started again, after requests', round(held.rss / MB, 1), 'MB', { target: { op: '<=', value: 200 } }),
      figure('peak RSS, started again', round(held.peak / MB, 1), 'MB'),
      figure('RSS of the server that indexed them', round(indexing.rss / MB, 1), 'MB'),
      figure('peak RSS while indexing', round(indexing.peak / MB, 1), 'MB'),
    ],
  };
}
