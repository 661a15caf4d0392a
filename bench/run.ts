import { join } from 'node:path';
import { backupBenchmark } from './backup.js';
import { blogSearchBenchmark } from './blog-search.js';
import { embeddingBenchmark } from './embedding.js';
import { firstStartBenchmark } from './first-start.js';
import { imagesBenchmark } from './images.js';
import { importBenchmark } from './import.js';
import { interopBenchmark } from './interop.js';
import { startContentServer, type ContentServer } from './content-server.js';
import { memoryBenchmark } from './memory.js';
import { museumSearchBenchmark } from './museum-search.js';
import { missingModules, registeredModules } from './modules.js';
import { loadBenchOptions, scaled, type BenchOptions } from './options.js';
import { ROOT } from './processes.js';
import { readBenchmark } from './read.js';
import { readUncachedBenchmark } from './read-uncached.js';
import { replayBenchmark } from './replay.js';
import { replayPostgresBenchmark } from './replay-postgres.js';
import { retrievalBenchmark } from './retrieval.js';
import { formatTable, skipped, writeResults, type BenchResult } from './report.js';
import { searchBenchmark } from './search.js';
import { vectorIndexBenchmark } from './vector-index.js';
import { stackBenchmark } from './stack.js';
import { stackPostgresBenchmark } from './stack-postgres.js';
import { startBenchmark } from './start.js';
import { writeBenchmark } from './write.js';

/** What several benchmarks measure on: built once, on first use. */
class Shared {
  private content: Promise<ContentServer> | null = null;

  /** The server holding 100,000 posts and as many chunks (search, blogsearch and memory); the first caller's scale sizes it. */
  contentServer(options: BenchOptions): Promise<ContentServer> {
    this.content ??= startContentServer(scaled(options, 100_000, 100));
    return this.content;
  }

  async close(): Promise<void> {
    if (this.content) await (await this.content.catch(() => null))?.stop();
  }
}

interface Benchmark {
  name: string;
  title: string;
  /** Feature modules the benchmark needs registered in app/modules.ts. */
  needs: readonly string[];
  run(options: BenchOptions, shared: Shared): Promise<BenchResult>;
}

const BENCHMARKS: readonly Benchmark[] = [
  { name: 'read', title: 'blog list reads vs a bare route', needs: ['blog'], run: readBenchmark },
  {
    name: 'read-uncached',
    title: 'reads no cache serves (a new URL each request) vs a bare route',
    needs: ['blog', 'platform'],
    run: readUncachedBenchmark,
  },
  { name: 'write', title: 'create-post commands vs raw SQLite inserts', needs: ['blog'], run: writeBenchmark },
  { name: 'replay', title: 'rebuild every read model from the log', needs: ['blog'], run: replayBenchmark },
  // Skipped, with the reason, unless PG_EVENTSTORE_URL is set.
  {
    name: 'replay-postgres',
    title: 'rebuild every read model from a PostgreSQL log',
    needs: ['blog'],
    run: replayPostgresBenchmark,
  },
  {
    name: 'search',
    title: 'chatbot search latency',
    needs: ['blog', 'chatbot'],
    run: async (o, s) => searchBenchmark(o, await s.contentServer(o)),
  },
  {
    name: 'blogsearch',
    title: 'blog list text search latency',
    needs: ['blog'],
    run: async (o, s) => blogSearchBenchmark(o, await s.contentServer(o)),
  },
  {
    name: 'memory',
    title: 'server RSS with posts and chunks',
    needs: ['blog', 'chatbot'],
    run: async (o, s) => memoryBenchmark(o, await s.contentServer(o)),
  },
  { name: 'backup', title: 'backup archive throughput', needs: ['backups'], run: backupBenchmark },
  { name: 'import', title: 'fixture import of items with one media each', needs: ['platform'], run: importBenchmark },
  {
    name: 'vector-index',
    title: 'embedded vector index alone: latency, recall, RSS',
    needs: ['chatbot'],
    run: vectorIndexBenchmark,
  },
  {
    name: 'start',
    title: 'start to first correct answer on caught-up read models',
    needs: ['blog'],
    run: startBenchmark,
  },
  {
    name: 'first-start',
    title: 'first start after an import under load',
    needs: ['platform', 'chatbot'],
    run: firstStartBenchmark,
  },
  {
    name: 'museum',
    title: 'museum scale: exact titles first, search from the start, blog search',
    needs: ['platform', 'blog', 'chatbot'],
    run: museumSearchBenchmark,
  },
  {
    name: 'embedding',
    title: 'embedded sentence model: speed, indexing, search',
    needs: ['chatbot'],
    run: embeddingBenchmark,
  },
  {
    name: 'retrieval',
    title: 'chatbot retrieval quality on held-out questions with near misses',
    needs: ['chatbot'],
    run: retrievalBenchmark,
  },
  {
    name: 'images',
    title: 'IIIF images and derivatives beside iiif-processor',
    needs: ['platform'],
    run: imagesBenchmark,
  },
  {
    name: 'interop',
    title: 'IIIF manifest of 1,000 canvases, OAI-PMH harvest and GetRecord',
    needs: ['platform'],
    run: interopBenchmark,
  },
  // Skipped, with the reason, unless KAFKA_BROKERS, MONGO_URL and ELASTICSEARCH_URL are set.
  {
    name: 'stack',
    title: 'read, write and chatbot search: production adapters beside embedded',
    needs: ['blog', 'chatbot'],
    run: stackBenchmark,
  },
  // Skipped, with the reason, unless the stack's engines and PG_EVENTSTORE_URL are set.
  {
    name: 'stack-postgres',
    title: 'writes with the log on PostgreSQL beside SQLite; read-your-write across two hosts',
    needs: ['blog'],
    run: stackPostgresBenchmark,
  },
];

/** BENCH_SCALE_<NAME> (e.g. BENCH_SCALE_REPLAY=0.1) overrides BENCH_SCALE for one benchmark. */
function scaleFor(name: string, options: BenchOptions): BenchOptions {
  const own = process.env[`BENCH_SCALE_${name.toUpperCase()}`];
  const scale = own ? Number(own) : options.scale;
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`BENCH_SCALE_${name.toUpperCase()} must be a positive number.`);
  return { ...options, scale };
}

async function runAll(options: BenchOptions): Promise<BenchResult[]> {
  const { names, error } = await registeredModules();
  const shared = new Shared();
  const results: BenchResult[] = [];
  try {
    for (const bench of BENCHMARKS) {
      if (options.only && !options.only.has(bench.name)) continue;
      const missing = error ? `app/modules.ts does not load: ${error}` : missingModules(names, bench.needs);
      if (missing) {
        results.push(skipped(bench.name, bench.title, missing));
        continue;
      }
      const own = scaleFor(bench.name, options);
      process.stderr.write(`bench ${bench.name}: running (scale ${own.scale})\n`);
      const began = Date.now();
      try {
        results.push(await bench.run(own, shared));
      } catch (failure) {
        const reason = failure instanceof Error ? failure.message : String(failure);
        results.push({ name: bench.name, title: bench.title, status: 'failed', reason, figures: [] });
      }
      process.stderr.write(`bench ${bench.name}: done in ${Math.round((Date.now() - began) / 1000)} s\n`);
    }
  } finally {
    await shared.close();
  }
  return results;
}

/** `npm run bench`: every benchmark in turn, a table on stdout and the same figures in bench/results.json. */
async function main(): Promise<void> {
  const startedAt = new Date();
  const options = loadBenchOptions();
  const results = await runAll(options);
  console.log(formatTable(results));
  const file = process.env.BENCH_RESULTS ?? join(ROOT, 'bench', 'results.json');
  writeResults(file, options, results, startedAt);
  console.log(`\nWrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
