import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { tempDataDir } from './datasets.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { runScript } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { round } from './stats.js';
import { TextGenerator } from './text.js';

/** A fixture (docs/fixtures.md) of one site and `count` public items, each with one media, ids given. */
export function itemsFixture(count: number): object {
  const text = new TextGenerator(11);
  const items = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    title: `Item ${i + 1} ${text.sentence(3)}`,
    description: text.sentence(30),
    site_ids: [1],
    is_public: true,
    media: [{ id: i + 1, title: `Scan ${i + 1}`, text: text.sentence(40), is_public: true }],
  }));
  return { sites: [{ id: 1, slug: 'main', title: 'Main site' }], items };
}

/** What bench/import-child.ts prints. */
const ImportOutputSchema = Type.Object({
  records: Type.Number(),
  ticked: Type.Number(),
  seconds: Type.Number(),
  /** Milliseconds from the start to the first record done, then to each tenth of the records. */
  tenths: Type.Array(Type.Number()),
  rss: Type.Number(),
});
type ImportOutput = Static<typeof ImportOutputSchema>;

/** Records per second over one tenth of the import (tenth 1 is the first). */
function tenthRate(output: ImportOutput, tenth: number): number {
  const records = output.ticked / 10;
  return records / ((output.tenths[tenth] - output.tenths[tenth - 1]) / 1000);
}

/**
 * 8. `npm run import` of 100,000 items with one media each (200,001 records) into an empty
 * DATA_DIR, in a child process: records/s overall (validation and the final catch-up included),
 * and over the first and the last tenth of the records, which should be alike (no look-up
 * that grows with the data).
 */
export async function importBenchmark(options: BenchOptions): Promise<BenchResult> {
  const items = scaled(options, 100_000, 100);
  const data = tempDataDir('import');
  try {
    const fixture = join(data.dir, 'items-fixture.json');
    writeFileSync(fixture, JSON.stringify(itemsFixture(items)));
    const output = parseCheckedOrThrow(
      ImportOutputSchema,
      await runScript('bench/import-child.ts', [fixture], { DATA_DIR: data.dir }, true),
      'The import process’s output',
    );
    const first = tenthRate(output, 1);
    const last = tenthRate(output, 10);
    return {
      name: 'import',
      title: `import ${items} items with one media each`,
      status: 'ran',
      setup: {
        items,
        records: output.records,
        seconds: round(output.seconds, 1),
        rate_per_tenth: Array.from({ length: 10 }, (_, i) => round(tenthRate(output, i + 1))),
        rss_after_mb: round(output.rss / 2 ** 20, 1),
      },
      figures: [
        figure('import', round(output.records / output.seconds), 'records/s', { target: { op: '>=', value: 2_000 } }),
        figure('first tenth', round(first), 'records/s', { target: { op: '>=', value: 2_000 } }),
        figure('last tenth', round(last), 'records/s', { target: { op: '>=', value: 2_000 } }),
        figure('last tenth / first tenth', round(last / first, 2), 'ratio', { target: { op: '>=', value: 0.8 } }),
      ],
    };
  } finally {
    data.cleanup();
  }
}
