import type { ContentServer } from './content-server.js';
import type { BenchOptions } from './options.js';
import { memoryOf, sleep } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { round } from './stats.js';

const MB = 2 ** 20;

/** 6. Resident memory of the server holding the content server's posts and chunks. */
export async function memoryBenchmark(_options: BenchOptions, content: ContentServer): Promise<BenchResult> {
  // Let the last requests' garbage settle before reading the figure.
  await sleep(2000);
  const { rss, peak } = memoryOf(content.server.pid);
  return {
    name: 'memory',
    title: `server RSS holding ${content.posts} posts and ${content.posts} chunks`,
    status: 'ran',
    setup: { posts: content.posts, chunks: content.posts },
    figures: [
      figure('RSS', round(rss / MB, 1), 'MB', { target: { op: '<=', value: 400 } }),
      figure('peak RSS', round(peak / MB, 1), 'MB'),
    ],
  };
}
