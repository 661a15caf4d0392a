import type { DocumentStore } from '../../infra/document-store/port.js';
import type { Clock } from '../../infra/clock/port.js';
import { indexOutbox } from '../../contracts/chatbot/documents.js';
import { readingPace, readingProgress } from '../../queries/chatbot/reading-progress.js';
import type { IndexOutcome } from './index-resource.js';

/** The pace is measured over the resources settled in this last stretch of time. */
const PACE_WINDOW_MS = 120_000;
/** How often the pace is written down for /health and the CLI while reading. */
const SAVE_EVERY_MS = 10_000;
/** A pace measured over less than this (the first jobs of a reading) says little: none is saved. */
const MIN_SPAN_MS = 5_000;
/** How long after a job the outbox is counted to see whether everything has been read. */
const CHECK_AFTER_MS = 1_000;

export interface TrackerLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Follows the chatbot's index and embed jobs: measures the pace at which resources become
 * searchable by meaning (written down, so /health and `npm run reindex -- --status` can estimate
 * the time left), and logs one line when the whole collection has become searchable by meaning.
 */
export class ReadingTracker {
  private readonly settled: number[] = [];
  private lastSaved = -Infinity;
  private reading = false;
  private check: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly documents: DocumentStore,
    private readonly clock: Clock,
    private readonly logger: TrackerLogger,
  ) {}

  /** An index or embed job ended: 'provisional' leaves the model's vectors owed, anything else settles the resource. */
  ended(outcome: IndexOutcome): void {
    if (this.stopped) return;
    const now = this.clock.now().getTime();
    if (outcome === 'provisional') {
      this.reading = true;
    } else {
      this.settled.push(now);
      while (this.settled.length > 0 && this.settled[0] < now - PACE_WINDOW_MS) this.settled.shift();
    }
    if (
      this.reading &&
      now - this.lastSaved >= SAVE_EVERY_MS &&
      this.settled.length > 1 &&
      now - this.settled[0] >= MIN_SPAN_MS
    ) {
      this.lastSaved = now;
      this.savePace(now).catch((error: unknown) =>
        this.logger.error({ err: error }, 'the chatbot reading pace could not be saved'),
      );
    }
    if (this.reading && !this.check) {
      this.check = setTimeout(() => {
        this.check = null;
        this.checkDone().catch((error: unknown) =>
          this.logger.error({ err: error }, 'the chatbot reading progress could not be read'),
        );
      }, CHECK_AFTER_MS);
      this.check.unref();
    }
  }

  /** An embed job started: the collection is being read by the model. */
  reads(): void {
    this.reading = true;
  }

  stop(): void {
    this.stopped = true;
    if (this.check) clearTimeout(this.check);
  }

  private async savePace(now: number): Promise<void> {
    const span = (now - this.settled[0]) / 1000;
    await readingPace(this.documents).put({
      _id: 'pace',
      resources_per_second: this.settled.length / span,
      measured_at: new Date(now).toISOString(),
    });
  }

  private async checkDone(): Promise<void> {
    if (this.stopped || !this.reading || (await indexOutbox(this.documents).count()) > 0) return;
    this.reading = false;
    const progress = await readingProgress(this.documents, this.clock.now());
    this.logger.info(
      { resources: progress.resources },
      `chatbot: the collection is fully searchable by meaning (${progress.resources} resources)`,
    );
  }
}
