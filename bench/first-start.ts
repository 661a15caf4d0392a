import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVE_NODE_FLAGS } from '../bin/serve-flags.js';
import { tempDataDir } from './datasets.js';
import { itemsFixture } from './import.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { runScript } from './processes.js';
import { figure, type BenchResult, type Figure } from './report.js';
import { timeToFirstAnswer } from './start.js';
import { median, round } from './stats.js';

const ITEMS_PATH = '/api/items?per_page=1';
/** The busy processes' own end, should the benchmark be killed before it stops them. */
const LOAD_LIMIT_MS = 600_000;

/** One process per core, spinning: the other engineers' test runs on the shared machine. */
function busyProcesses(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${LOAD_LIMIT_MS}; while (Date.now() < end);`], {
      stdio: 'ignore',
    }),
  );
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/**
 * Over `items` imported items, each round under the same load: the first start, from an empty
 * vector index, then a restart that finds the index that start began (not empty: nothing is
 * refilled), as its baseline. Two figures.
 */
async function firstStarts(
  options: BenchOptions,
  items: number,
): Promise<{ figures: Figure[]; importSeconds: number }> {
  const data = tempDataDir(`first-start-${items}`);
  try {
    const fixture = join(data.dir, 'items-fixture.json');
    writeFileSync(fixture, JSON.stringify(itemsFixture(items)));
    const importBegan = performance.now();
    await runScript('bin/import.ts', [fixture], { DATA_DIR: data.dir });
    const importSeconds = (performance.now() - importBegan) / 1000;
    rmSync(fixture);
    const start = () =>
      timeToFirstAnswer(
        [...SERVE_NODE_FLAGS, 'dist/bin/serve.js'],
        { DATA_DIR: data.dir },
        ITEMS_PATH,
        (status, total, body) => status === 200 && total === String(items) && Array.isArray(body) && body.length === 1,
      );
    const firsts: number[] = [];
    const restarts: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      for (const suffix of ['', '-wal', '-shm'])
        rmSync(join(data.dir, `vector-index.sqlite${suffix}`), { force: true });
      const load = busyProcesses(2);
      try {
        firsts.push(await start());
        restarts.push(await start());
      } finally {
        await stopAll(load);
      }
    }
    return {
      figures: [
        figure(`first start, ${items} items, 2 busy processes`, round(median(firsts)), 'ms', {
          rounds: firsts.map((r) => round(r)),
        }),
        figure(`restart with the index begun, ${items} items, same load`, round(median(restarts)), 'ms', {
          rounds: restarts.map((r) => round(r)),
        }),
      ],
      importSeconds,
    };
  } finally {
    data.cleanup();
  }
}

/**
 * Issue 36: `npm start` right after `npm run import` (the vector index empty, so every item and
 * media is owed an index job), with two busy processes on the two cores, from spawn to the first
 * correct `GET /api/items?per_page=1` (the full total, one item). Each round deletes
 * vector-index.sqlite first, as the failing starts had it.
 */
export async function firstStartBenchmark(options: BenchOptions): Promise<BenchResult> {
  const sizes = [scaled(options, 20_000, 100), scaled(options, 100_000, 500)];
  const measured = [];
  for (const items of sizes) measured.push(await firstStarts(options, items));
  return {
    name: 'first-start',
    title: `first start after an import, empty vector index, 2 busy processes: ${sizes.join(' and ')} items`,
    status: 'ran',
    setup: { items: sizes, rounds: options.rounds, import_seconds: measured.map((m) => round(m.importSeconds, 1)) },
    figures: measured.flatMap((m) => m.figures),
  };
}
