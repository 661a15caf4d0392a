/**
 * Sizes and timing of a benchmark run, from the environment. BENCH_SCALE shrinks every data
 * set (0.1 for a quick run while developing); the sizes are the default (1).
 */
function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}".`);
  return value;
}

export interface BenchOptions {
  scale: number;
  /** Measured rounds per figure; the median is reported. Odd, so the median is one real round. */
  rounds: number;
  /** Seconds of load per autocannon round. */
  duration: number;
  /** Concurrent HTTP connections for throughput figures. */
  connections: number;
  /** Benchmarks to run (names), or null for all. */
  only: Set<string> | null;
}

export function loadBenchOptions(): BenchOptions {
  const scale = positiveNumber('BENCH_SCALE', 1);
  const rounds = Math.max(1, Math.round(positiveNumber('BENCH_ROUNDS', 3)));
  const only = process.env.BENCH_ONLY?.trim();
  return {
    scale,
    rounds: rounds % 2 === 0 ? rounds + 1 : rounds,
    duration: positiveNumber('BENCH_DURATION', scale >= 1 ? 5 : 2),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 10)),
    only: only
      ? new Set(
          only
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        )
      : null,
  };
}

/** A data set size under the scale, never below `min`. */
export function scaled(options: BenchOptions, size: number, min = 1): number {
  return Math.max(min, Math.round(size * options.scale));
}
