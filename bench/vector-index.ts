import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { LocalEmbedder } from '../infra/embedder/local.js';
import { SqliteVectorIndex } from '../infra/vector-index/sqlite.js';
import { EnglishGenerator } from './english.js';
import type { BenchOptions } from './options.js';
import { figure, type BenchResult } from './report.js';
import { median, round } from './stats.js';

const MODEL = 'bench-words';
const QUERIES = 40;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/**
 * The embedded vector index alone (no HTTP, no embedding of the query): 100,000 chunks of
 * English text embedded by the words embedder (the search benchmark's), on a file. Latency of a
 * search for the chatbot's k (100, 150 with a site) and k = 10; recall at 10, 100 and (site)
 * 150 against an exact scan (every chunk's `vec_distance_cosine`, by SQL in the same file), and
 * that scan's time; the process's RSS once the index is reopened and searched; the first search
 * after a reopen (a scan while the matrix is read in the background) and the matrix's reading.
 */
export async function vectorIndexBenchmark(options: BenchOptions): Promise<BenchResult> {
  const chunks = Math.max(1000, Math.round(100_000 * options.scale));
  const dir = mkdtempSync(join(tmpdir(), 'bench-vector-index-'));
  const file = join(dir, 'vector-index.sqlite');
  try {
    const english = new EnglishGenerator(3);
    const embedder = new LocalEmbedder();
    let index = new SqliteVectorIndex(file);
    const started = Date.now();
    for (let id = 1; id <= chunks; id++) {
      const text = `${english.title()}. ${english.description(60)}`;
      await index.replace(
        {
          resourceType: 'blog_post',
          resourceId: id,
          title: `post ${id}`,
          path: `/blog/${id}`,
          siteIds: [1 + (id % 3)],
          itemSetIds: [],
        },
        [{ text, vector: embedder.vector(text) }],
        MODEL,
      );
    }
    const indexSeconds = (Date.now() - started) / 1000;
    await index.close();

    const rssBefore = process.memoryUsage().rss;
    const reopenStarted = process.hrtime.bigint();
    // As the server opens it: the matrix read in the background, searches meanwhile scanning.
    index = new SqliteVectorIndex(file, { readInBackground: true });
    const questions = Array.from({ length: QUERIES }, () => embedder.vector(english.question()));
    await index.search(questions[0], 100, { model: MODEL });
    const firstSearchMs = Number(process.hrtime.bigint() - reopenStarted) / 1e6;
    await index.readMatrix(MODEL);
    const matrixReadMs = Number(process.hrtime.bigint() - reopenStarted) / 1e6;

    const timed = async (k: number, siteId?: number) => {
      const times: number[] = [];
      for (const query of questions) {
        const at = process.hrtime.bigint();
        await index.search(query, k, { model: MODEL, siteId });
        times.push(Number(process.hrtime.bigint() - at) / 1e6);
      }
      return times;
    };
    const k100 = await timed(100);
    const k150 = await timed(150, 2);
    const k10 = await timed(10);
    const rss = process.memoryUsage().rss;

    // Exact reference by the library's own cosine over every chunk (the index's search before the
    // first pass, timed here in the same run): recall of the top 10, the top 100 and, with the
    // site filter, the top 150.
    const db = new Database(file, { readonly: true });
    sqliteVec.load(db);
    const exact = db.prepare<[{ site: number; query: Buffer; k: number }], { id: number }>(
      `select r.resource_id as id from vector_chunks c join vector_resources r on r.id = c.resource
       where @site = 0 or c.resource in (select resource from vector_resource_sites where site_id = @site)
       order by coalesce(vec_distance_cosine(c.vector, @query), 1), c.id limit @k`,
    );
    const recall = { at10: 0, at100: 0, site150: 0 };
    const scanTimes: number[] = [];
    for (const query of questions) {
      const bytes = Buffer.from(query.buffer, query.byteOffset, query.byteLength);
      const at = process.hrtime.bigint();
      const want100 = exact.all({ site: 0, query: bytes, k: 100 }).map((row) => row.id);
      scanTimes.push(Number(process.hrtime.bigint() - at) / 1e6);
      const overlap = (want: number[], hits: { resourceId: number }[]) =>
        hits.filter((hit) => want.includes(hit.resourceId)).length / want.length;
      recall.at10 += overlap(want100.slice(0, 10), await index.search(query, 10, { model: MODEL }));
      recall.at100 += overlap(want100, await index.search(query, 100, { model: MODEL }));
      const wantSite = exact.all({ site: 2, query: bytes, k: 150 }).map((row) => row.id);
      recall.site150 += overlap(wantSite, await index.search(query, 150, { model: MODEL, siteId: 2 }));
    }
    db.close();
    await index.close();
    return {
      name: 'vector-index',
      title: `embedded vector index (int8 first pass by usearch, exact re-rank by sqlite-vec) over ${chunks} chunks`,
      status: 'ran',
      setup: { chunks, dimension: embedder.dimension, queries: QUERIES, index_seconds: round(indexSeconds, 1) },
      figures: [
        figure('search k=100 p50', round(median(k100), 2), 'ms', { target: { op: '<=', value: 10 } }),
        figure('search k=100 p99', round(percentile(k100, 0.99), 2), 'ms'),
        figure('search k=150 site filter p50', round(median(k150), 2), 'ms'),
        figure('search k=10 p50', round(median(k10), 2), 'ms'),
        figure('exact SQL scan k=100 p50 (the search before the first pass)', round(median(scanTimes), 2), 'ms'),
        figure('recall@10 against exact', round(recall.at10 / QUERIES, 4), 'ratio', {
          target: { op: '>=', value: 0.99 },
        }),
        figure('recall@100 against exact', round(recall.at100 / QUERIES, 4), 'ratio'),
        figure('recall@150 with a site filter against exact', round(recall.site150 / QUERIES, 4), 'ratio'),
        figure('first search after reopen (a scan, the matrix being read)', round(firstSearchMs, 1), 'ms'),
        figure('matrix read in the background after reopen', round(matrixReadMs, 1), 'ms'),
        figure('searches answered by the scan after the matrix was read', index.searchCounts.scan - 1, 'count'),
        figure('RSS after reopen and searches', round(rss / 1e6), 'MB'),
        figure('RSS growth from reopen and searches', round((rss - rssBefore) / 1e6), 'MB'),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
