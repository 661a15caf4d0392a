export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of the samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Runs `measure` and its baseline `warmUps` times each as a warm-up (once unless told), then
 * `rounds` times, alternating so both see the same machine load; returns every measured round.
 */
export async function alternateRounds<T, B>(
  rounds: number,
  measure: () => Promise<T>,
  baseline: () => Promise<B>,
  warmUps = 1,
): Promise<{ subject: T[]; baseline: B[] }> {
  for (let i = 0; i < warmUps; i++) {
    await measure();
    await baseline();
  }
  const subject: T[] = [];
  const base: B[] = [];
  for (let i = 0; i < rounds; i++) {
    // Swap the order every round so neither side always runs on a cooler (or hotter) machine.
    if (i % 2 === 0) {
      subject.push(await measure());
      base.push(await baseline());
    } else {
      base.push(await baseline());
      subject.push(await measure());
    }
  }
  return { subject, baseline: base };
}
