import { Type } from '@sinclair/typebox';
import { checkedOrThrow } from '../infra/checked-json.js';
import type { BenchOptions } from './options.js';
import { figure, type BenchResult } from './report.js';
import { percentile, round } from './stats.js';
import { WikipediaText } from './wikipedia-text.js';

const LIST = '/api/blog_posts';

interface Answer {
  total: number;
  ms: number;
}

/** One list request with a search, timed from the client (one at a time: latency, not throughput). */
async function searchOnce(url: string, needle: string): Promise<Answer> {
  const began = performance.now();
  const response = await fetch(`${url}${LIST}?per_page=10&search=${encodeURIComponent(needle)}`);
  await response.arrayBuffer();
  const ms = performance.now() - began;
  if (response.status !== 200) throw new Error(`${LIST}?search=${needle} answered ${response.status}`);
  return { total: Number(response.headers.get('platform-total-results') ?? Number.NaN), ms };
}

/**
 * Needles as readers type them: a word of the posts' vocabulary, each word as likely as any
 * other (found in from none to every post, inside longer words too), the same in capitals, two
 * such words (rarely side by side), and two words of one post's body (a handful of posts);
 * and, beside them, two letters of such a word (under a trigram: the bounded scan). The posts
 * are English by word frequency (`WikipediaText`). Every request's needle differs from the one
 * before.
 */
async function needles(url: string, posts: number, count: number): Promise<{ long: string[]; short: string[] }> {
  const vocabulary = new WikipediaText(23);
  const words = Array.from({ length: count * 2 }, () => vocabulary.anyWord());
  const long: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    if (kind === 0) long.push(words[i]);
    else if (kind === 1) long.push(words[i].toUpperCase());
    else if (kind === 2) long.push(`${words[i]} ${words[i + count]}`);
    else {
      const id = 1 + ((i * 7919) % posts);
      const post = checkedOrThrow(
        Type.Object({ 'o:content': Type.String() }),
        await (await fetch(`${url}${LIST}/${id}`)).json(),
        `GET ${LIST}/${id}’s answer`,
      );
      const body = post['o:content']
        .replace(/<[^>]*>/g, ' ')
        .split(/\s+/)
        .filter(Boolean);
      const at = i % Math.max(1, body.length - 1);
      long.push(body.slice(at, at + 2).join(' '));
    }
  }
  const short = words.slice(0, count).map((word, i) => word.padEnd(4, 'x').slice(i % 3, (i % 3) + 2));
  return { long, short };
}

/**
 * 4b. GET /api/blog_posts?search= over the content server's 100,000 posts: the list's text
 * search (an FTS5 trigram index in the read-model file), p50 and p99 of one client, every
 * needle different; needles of two characters shown beside it without a target.
 */
export async function blogSearchBenchmark(
  options: BenchOptions,
  content: { server: { url: string }; posts: number },
): Promise<BenchResult> {
  const { url } = content.server;
  const perRound = 200;
  const { long, short } = await needles(url, content.posts, perRound);
  for (const needle of long.slice(0, 20)) await searchOnce(url, needle);
  const longMs: number[] = [];
  const shortMs: number[] = [];
  const totals: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const needle of long) {
      const answer = await searchOnce(url, `${needle}`.slice(0, 200));
      longMs.push(answer.ms);
      totals.push(answer.total);
    }
    for (const needle of short) shortMs.push((await searchOnce(url, needle)).ms);
  }
  if (totals.every((total) => total === 0)) throw new Error('no search found anything');
  return {
    name: 'blogsearch',
    title: `GET ${LIST}?search= over ${content.posts} posts`,
    status: 'ran',
    setup: {
      posts: content.posts,
      connections: 1,
      requests: longMs.length + shortMs.length,
      rounds: options.rounds,
      median_total: percentile(totals, 50),
    },
    figures: [
      figure('latency p50', round(percentile(longMs, 50)), 'ms', { target: { op: '<=', value: 5 } }),
      figure('latency p99', round(percentile(longMs, 99)), 'ms'),
      figure('2-letter p50', round(percentile(shortMs, 50)), 'ms'),
      figure('2-letter p99', round(percentile(shortMs, 99)), 'ms'),
    ],
  };
}
