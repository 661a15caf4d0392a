import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { SERVE_NODE_FLAGS } from '../bin/serve-flags.js';
import { blogDataDir, importAdmin, tempDataDir } from './datasets.js';
import { EventLogWriter } from './event-log.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { freePort, ROOT, sleep, startAppServer } from './processes.js';
import { writeMixedLog } from './replay.js';
import { figure, type BenchResult } from './report.js';
import { median, round } from './stats.js';

const POSTS_PATH = '/api/blog_posts?per_page=10';
const ITEMS_PATH = '/api/items?per_page=10';
const EVENTS_PER_UNIT = 10;

/** What a correct first answer is: a full page, and the total of the data set. */
export type Check = (status: number, total: string | null, body: unknown) => boolean;

const pageOf =
  (total: number): Check =>
  (status, header, body) =>
    status === 200 && header === String(total) && Array.isArray(body) && body.length === 10;

/**
 * Milliseconds from spawning `args` to the first correct answer of `path`, polled every 5 ms
 * (a refused connection answers at once); the process is stopped after.
 */
export async function timeToFirstAnswer(
  args: string[],
  env: NodeJS.ProcessEnv,
  path: string,
  check: Check,
): Promise<number> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      if (performance.now() - began > 120_000) throw new Error(`${args.join(' ')} gave no correct answer within 120 s`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        const text = await response.text();
        if (check(response.status, response.headers.get('platform-total-results'), JSON.parse(text)))
          return performance.now() - began;
      } catch {
        // not listening yet
      }
      await sleep(5);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The baseline compiled as the server is (dist/), so neither start pays for a TypeScript loader:
 * bench/bare-server.ts through TypeScript's own transpiler, placed where it finds node_modules.
 */
function compiledBareServer(): string {
  const source = readFileSync(join(ROOT, 'bench', 'bare-server.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(join(ROOT, 'dist', 'bench'), { recursive: true });
  const file = join(ROOT, 'dist', 'bench', 'bare-server.js');
  writeFileSync(file, outputText);
  return file;
}

/** Starts the server once on `dir` and stops it: its read models are then caught up and checkpointed. */
async function catchUp(dir: string): Promise<void> {
  const server = await startAppServer(dir);
  await server.stop();
}

/**
 * Start to first correct answer on a DATA_DIR whose read models are caught up: 10,000 posts
 * against a bare Fastify process answering the same bytes (target <= 3x), and a 1,000,000-event
 * log (target <= 3 s). Each round is a fresh process, so the OS file cache is warm for both.
 */
export async function startBenchmark(options: BenchOptions): Promise<BenchResult> {
  const posts = scaled(options, 10_000, 20);
  const units = Math.ceil(scaled(options, 1_000_000, 1000) / EVENTS_PER_UNIT);
  const blog = await blogDataDir('start', posts, { contentWords: 80 });
  const big = tempDataDir('start-log');
  try {
    await importAdmin(big.dir);
    const log = new EventLogWriter(big.dir);
    writeMixedLog(log, units);
    log.close();
    await catchUp(blog.dir);
    await catchUp(big.dir);

    const serve = [...SERVE_NODE_FLAGS, 'dist/bin/serve.js'];
    const body = await (async () => {
      const server = await startAppServer(blog.dir);
      try {
        const response = await fetch(`${server.url}${POSTS_PATH}`);
        return {
          bytes: Buffer.from(await response.arrayBuffer()),
          type: response.headers.get('content-type') ?? 'application/json',
          total: response.headers.get('platform-total-results'),
        };
      } finally {
        await server.stop();
      }
    })();
    writeFileSync(join(blog.dir, 'bare-body'), body.bytes);
    writeFileSync(
      join(blog.dir, 'bare-headers.json'),
      JSON.stringify({ 'content-type': body.type, 'platform-total-results': body.total }),
    );
    const bare = [compiledBareServer(), join(blog.dir, 'bare-body'), join(blog.dir, 'bare-headers.json')];

    const app: number[] = [];
    const baseline: number[] = [];
    const logStarts: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      app.push(await timeToFirstAnswer(serve, { DATA_DIR: blog.dir }, POSTS_PATH, pageOf(posts)));
      baseline.push(await timeToFirstAnswer(bare, {}, POSTS_PATH, pageOf(posts)));
      logStarts.push(await timeToFirstAnswer(serve, { DATA_DIR: big.dir }, ITEMS_PATH, pageOf(units)));
    }
    const appStart = median(app);
    const bareStart = median(baseline);
    return {
      name: 'start',
      title: `start to first correct answer: ${posts} posts; a ${units * EVENTS_PER_UNIT}-event log`,
      status: 'ran',
      setup: { posts, events: units * EVENTS_PER_UNIT, rounds: options.rounds },
      figures: [
        figure('start ratio', round(appStart / bareStart, 2), 'x', {
          baseline: { value: round(bareStart), unit: 'ms', label: 'bare fastify start, same bytes' },
          target: { op: '<=', value: 3 },
        }),
        figure(`start, ${posts} posts`, round(appStart), 'ms', { rounds: app.map((r) => round(r)) }),
        figure(`start, ${units * EVENTS_PER_UNIT}-event log`, round(median(logStarts)), 'ms', {
          target: { op: '<=', value: 3000 },
          rounds: logStarts.map((r) => round(r)),
        }),
      ],
    };
  } finally {
    blog.cleanup();
    big.cleanup();
  }
}
