import cliProgress from 'cli-progress';

export interface ProgressBar {
  tick(amount?: number): void;
  stop(): void;
}

export interface ProgressOptions {
  /** Shows the time left, estimated from the rate over the last `etaWindow` ticks. */
  eta?: boolean;
  etaWindow?: number;
}

/** A progress bar on stderr for long CLI jobs; plain lines when stderr is not a terminal. */
export function progressBar(label: string, total: number, options: ProgressOptions = {}): ProgressBar {
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}${options.eta ? ' | ETA {eta_formatted}' : ''}`,
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 2000,
      hideCursor: true,
      etaBuffer: options.etaWindow ?? 10,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(total, 0), 0);
  return {
    tick: (amount = 1) => bar.increment(amount),
    stop: () => bar.stop(),
  };
}
