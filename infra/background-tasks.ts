import type { Logger } from 'pino';
import { errorMessage } from '../infra/errors.js';

/** What a task says of itself as it goes. */
export interface TaskProgress {
  /** How many units the task has in all, once it knows (null until then). */
  setTotal(total: number): void;
  /** Units done since the last call. */
  advance(units?: number): void;
}

/** A task as /health shows it. */
export interface BackgroundTaskReport {
  name: string;
  state: 'running' | 'done' | 'failed' | 'stopped';
  done: number;
  total: number | null;
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

/**
 * The work a start owes that no request waits for (a vector index refilled after an import,
 * say): each task runs after the server listens, is never awaited by the start, reports its
 * progress for /health, and has its failure logged rather than thrown into the process. A task
 * is handed an AbortSignal, raised when the runtime closes, and checks it between its batches.
 */
export class BackgroundTasks {
  private readonly tasks: BackgroundTaskReport[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();

  constructor(private readonly logger: Pick<Logger, 'info' | 'error'>) {}

  /** Starts `work` now, in the background; what it throws is logged and reported, never rethrown. */
  run(name: string, work: (progress: TaskProgress, signal: AbortSignal) => Promise<void>): void {
    const report: BackgroundTaskReport = {
      name,
      state: 'running',
      done: 0,
      total: null,
      started_at: new Date().toISOString(),
      finished_at: null,
      error: null,
    };
    this.tasks.push(report);
    const progress: TaskProgress = {
      setTotal: (total) => (report.total = total),
      advance: (units = 1) => (report.done += units),
    };
    const signal = this.abort.signal;
    const task = (async () => {
      try {
        await work(progress, signal);
        report.state = signal.aborted ? 'stopped' : 'done';
        if (report.state === 'done')
          this.logger.info({ task: name, done: report.done }, `background task ${name} done`);
      } catch (error) {
        report.state = 'failed';
        report.error = errorMessage(error);
        this.logger.error({ err: error, task: name }, `background task ${name} failed`);
      } finally {
        report.finished_at = new Date().toISOString();
      }
    })();
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  /** Every task of this runtime, oldest first. */
  report(): BackgroundTaskReport[] {
    return this.tasks.map((task) => ({ ...task }));
  }

  /** Resolves when every task started so far has ended (tests, and close). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Asks every task to stop at its next batch and waits until they have. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.settled();
  }
}
