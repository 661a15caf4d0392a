import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BenchOptions } from './options.js';

/** One measured figure: its value, what it is compared with and the target it must meet. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The baseline measured in the same run, when the figure is a ratio of one. */
  baseline?: { value: number; unit: string; label: string };
  /** Present when the figure has a target. */
  target?: { op: '>=' | '<='; value: number };
  pass?: boolean;
  /** Every measured round, before the median. */
  rounds?: number[];
}

export interface BenchResult {
  name: string;
  title: string;
  status: 'ran' | 'skipped' | 'failed';
  reason?: string;
  /** What was measured on: sizes, connections, durations. */
  setup?: Record<string, unknown>;
  figures: Figure[];
}

export function figure(
  name: string,
  value: number,
  unit: string,
  extra: Omit<Figure, 'name' | 'value' | 'unit' | 'pass'> = {},
): Figure {
  const result: Figure = { name, value, unit, ...extra };
  if (extra.target) {
    result.pass = extra.target.op === '>=' ? value >= extra.target.value : value <= extra.target.value;
  }
  return result;
}

export function skipped(name: string, title: string, reason: string): BenchResult {
  return { name, title, status: 'skipped', reason, figures: [] };
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return String(Math.round(value * 1000) / 1000);
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
}

/** The figures as a plain-text table, one row per figure, skipped benchmarks with their reason. */
export function formatTable(results: readonly BenchResult[]): string {
  const header = ['benchmark', 'figure', 'value', 'baseline', 'target', 'result'];
  const rows: string[][] = [];
  for (const result of results) {
    if (result.status !== 'ran') {
      // The whole reason is in results.json; the table keeps its first line.
      const reason = (result.reason ?? '').split('\n')[0].slice(0, 160);
      rows.push([result.name, '-', '-', '-', '-', `${result.status}: ${reason}`]);
      continue;
    }
    for (const f of result.figures) {
      rows.push([
        result.name,
        f.name,
        `${formatNumber(f.value)} ${f.unit}`,
        f.baseline ? `${formatNumber(f.baseline.value)} ${f.baseline.unit} (${f.baseline.label})` : '',
        f.target ? `${f.target.op} ${formatNumber(f.target.value)}` : '',
        f.pass === undefined ? '' : f.pass ? 'pass' : 'FAIL',
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [
    pad(header, widths),
    pad(
      widths.map((w) => '-'.repeat(w)),
      widths,
    ),
    ...rows.map((r) => pad(r, widths)),
  ].join('\n');
}

export function writeResults(
  file: string,
  options: BenchOptions,
  results: readonly BenchResult[],
  startedAt: Date,
): void {
  mkdirSync(dirname(file), { recursive: true });
  const document = {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    options: { ...options, only: options.only ? [...options.only] : null },
    results,
  };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}
