import { availableParallelism, loadavg } from 'node:os';
import { DependencyUnavailableError } from '../../errors.js';
import { DEFAULT_SENTENCE_MODEL, type SentenceModelSpec } from './model-files.js';
import { ModelLane } from './model-lane.js';
import { piecesOf, PIECE_WORDS } from './pieces.js';
import { SENTENCE_DIMENSION, type ModelReply } from './protocol.js';

export type ModelPriority = 'query' | 'document';

export interface SentenceModelOptions {
  /** The model the threads load; DEFAULT_SENTENCE_MODEL unless a benchmark compares another. */
  spec?: SentenceModelSpec;
  /** Words per piece a text is cut into (PIECE_WORDS); a benchmark compares others. */
  pieceWords?: number;
  /** The threads' script; tests give one that misbehaves. */
  threadScript?: URL;
  /** The longest a query waits for its vector, start of a new thread included. */
  queryTimeoutMs?: number;
  /** The longest a batch of documents waits, plus PER_PIECE_MS for each of its pieces. */
  documentTimeoutMs?: number;
  /** The longest one batch may hold a thread (the model loaded) before it is taken for hung and replaced. */
  batchTimeoutMs?: number;
  /** Pieces of a query sent to the query thread at once: queries take turns batch by batch. */
  queryBatchPieces?: number;
  /** Pieces of documents sent to a document thread at once: no query waits behind them, and larger batches read a little faster. */
  documentBatchPieces?: number;
  /**
   * Threads reading documents at most: the first always, the others only while no query has
   * been asked for QUIET_MS and the machine has a core to spare for them (`spareCore`).
   */
  documentThreads?: number;
  /**
   * Whether the machine has a core for each document thread wanted, given how many run now; by
   * default from the load average (machineHasSpareCore). Tests say yes or no.
   */
  spareCore?: (documentThreadsRunning: number, documentThreadsWanted: number) => boolean;
  /** A document thread with nothing to read for this long is ended, and its model's memory with it. */
  documentIdleMs?: number;
  /** What a new thread may take to load the model (about a second, far more on a busy machine), on top of the other limits. */
  startTimeoutMs?: number;
  /** What a thread asked to close may take to end its batch and release the model; then it is terminated. */
  closeTimeoutMs?: number;
}

const DEFAULTS = {
  queryTimeoutMs: 10_000,
  documentTimeoutMs: 60_000,
  batchTimeoutMs: 20_000,
  queryBatchPieces: 4,
  documentBatchPieces: 8,
  documentThreads: 2,
  documentIdleMs: 30_000,
  startTimeoutMs: 30_000,
  closeTimeoutMs: 30_000,
};
/** A piece takes about 8 ms on one idle core; this leaves room for a busy machine. */
const PER_PIECE_MS = 1_000;
/**
 * Document threads past the first take a batch only when no query has been asked for this long:
 * on two cores, a second document thread would take the core the queries need. Within it,
 * documents go in batches of queryBatchPieces, so a query that comes shares the cores with at
 * most four pieces of documents (about 30 ms).
 */
export const QUIET_MS = 2_000;

/**
 * Whether the document threads wanted would each find a core: the 1-minute load average less
 * what our document threads running add to it (about one each) is the other work; it and the
 * threads wanted must fit in the cores, give or take half of one. On a machine busy with other
 * work a second thread only halves the first one's share (two model processes side by side
 * each read half as fast there, see bench/README.md), and costs a model's memory.
 */
export function machineHasSpareCore(documentThreadsRunning: number, documentThreadsWanted: number): boolean {
  const others = Math.max(0, loadavg()[0] - documentThreadsRunning);
  return others + documentThreadsWanted <= availableParallelism() + 0.5;
}

interface Pending {
  priority: ModelPriority;
  pieces: string[];
  /** For each piece, the number of the text it came from. */
  owners: number[];
  sums: Float32Array[];
  sent: number;
  done: number;
  settled: boolean;
  timer: NodeJS.Timeout;
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** Pieces `from` to `from + count` of one request, on a thread. */
interface Batch {
  pending: Pending;
  from: number;
  count: number;
}

function unavailable(message: string): DependencyUnavailableError {
  return new DependencyUnavailableError('sentence model', message);
}

/**
 * The sentence model on worker threads, so no request waits on the event loop behind an
 * embedding. Texts are cut into bounded pieces (a text's vector is the normalised mean of its
 * pieces'). Queries have a thread of their own, so a question never waits behind documents
 * being read: it waits at most for a batch of another query (queries take turns, four pieces at
 * a time), and no document batch starts while a query is being embedded, so the query shares
 * the cores with the one batch already running at most (four pieces when a query came lately).
 * The query thread starts at the first query (once no document thread is loading the model);
 * until it has loaded the model (about 0.5 s, far more on a busy machine), a document thread
 * that is free takes queries before documents, so only those first queries may wait for the
 * document batch then running. Documents go to threads of their own: one, and a second while no query
 * has been asked for QUIET_MS and the machine has a core for it; a document thread idle for
 * documentIdleMs is ended, so once the collection is read only the query thread holds a model.
 *
 * Every wait is bounded: a request past its deadline is refused with a 503, a batch past its
 * own deadline gets its thread replaced, and a thread that stops fails the request it was
 * serving; the next request starts a new one.
 */
export class SentenceModel {
  readonly dimension = SENTENCE_DIMENSION;
  readonly spec: SentenceModelSpec;
  readonly pieceWords: number;
  private readonly options: typeof DEFAULTS & {
    threadScript?: URL;
    spareCore?: (running: number, wanted: number) => boolean;
  };
  private readonly queries: Pending[] = [];
  private readonly documents: Pending[] = [];
  private readonly queryLane: ModelLane<Batch>;
  private readonly documentLanes: ModelLane<Batch>[];
  private lastQueryAt = -Infinity;
  private retireTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: SentenceModelOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
    this.spec = options.spec ?? DEFAULT_SENTENCE_MODEL;
    this.pieceWords = options.pieceWords ?? PIECE_WORDS;
    const limits = {
      spec: this.spec,
      threadScript: this.options.threadScript,
      batchTimeoutMs: this.options.batchTimeoutMs,
      startTimeoutMs: this.options.startTimeoutMs,
      closeTimeoutMs: this.options.closeTimeoutMs,
    };
    this.queryLane = this.lane(limits, 'query');
    this.documentLanes = Array.from({ length: Math.max(1, this.options.documentThreads) }, () =>
      this.lane(limits, 'document'),
    );
  }

  /** Threads started so far, for queries and documents (tests check a crashed one is replaced). */
  get threadsStarted(): number {
    return this.queryLane.threadsStarted + this.documentLanes.reduce((sum, lane) => sum + lane.threadsStarted, 0);
  }

  /** Threads running now (each holds a copy of the model). */
  get threadsRunning(): number {
    return [this.queryLane, ...this.documentLanes].filter((lane) => lane.running).length;
  }

  embed(texts: string[], priority: ModelPriority): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(unavailable('The sentence model is closed.'));
    const pieces: string[] = [];
    const owners: number[] = [];
    const prefix = priority === 'query' ? this.spec.queryPrefix : this.spec.documentPrefix;
    texts.forEach((text, index) => {
      for (const piece of piecesOf(text, this.pieceWords)) {
        pieces.push(prefix + piece);
        owners.push(index);
      }
    });
    const sums = texts.map(() => new Float32Array(SENTENCE_DIMENSION));
    if (pieces.length === 0) return Promise.resolve(sums);
    const lanes = priority === 'query' ? [this.queryLane, ...this.documentLanes] : this.documentLanes;
    const timeoutMs =
      (priority === 'query'
        ? this.options.queryTimeoutMs
        : this.options.documentTimeoutMs + PER_PIECE_MS * pieces.length) +
      (lanes.some((lane) => lane.loaded) ? 0 : this.options.startTimeoutMs);
    if (priority === 'query') this.lastQueryAt = performance.now();
    return new Promise<Float32Array[]>((resolve, reject) => {
      const pending: Pending = {
        priority,
        pieces,
        owners,
        sums,
        sent: 0,
        done: 0,
        settled: false,
        resolve,
        reject,
        timer: setTimeout(
          () => this.fail(pending, unavailable('The sentence model did not answer in time; try again.')),
          timeoutMs,
        ),
      };
      (priority === 'query' ? this.queries : this.documents).push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retireTimer) clearTimeout(this.retireTimer);
    for (const pending of [...this.queries, ...this.documents])
      this.fail(pending, unavailable('The sentence model is closed.'));
    await Promise.all([this.queryLane, ...this.documentLanes].map((lane) => lane.close()));
  }

  private lane(limits: ConstructorParameters<typeof ModelLane>[0], role: ModelPriority): ModelLane<Batch> {
    return new ModelLane<Batch>(limits, {
      // The query thread loads at the first query, not with the first document thread: a CLI
      // that only reads documents, or a server nobody asks, holds one model, not two.
      loaded: () => this.dispatch(),
      replied: (batch, reply) => this.received(batch, reply),
      stopped: (batch, wasLoaded, code) => this.stopped(role, batch, wasLoaded, code),
    });
  }

  /**
   * Gives every free thread its next batch: the query thread a query's, the document threads the
   * oldest documents'. While a query is being embedded no document batch starts: the query has
   * the cores, shared at most with the document batch already running.
   */
  private dispatch(): void {
    if (this.closed) return;
    // One load at a time: while a document thread loads the model, the query thread waits to
    // start (two loads would halve each other's cores), and a query goes to the first thread
    // that has the model (`stranded` below).
    const documentLoading = this.documentLanes.some((lane) => lane.running && !lane.loaded);
    if (this.queryLane.running || !documentLoading)
      this.feed(this.queryLane, this.queries, this.options.queryBatchPieces);
    const quiet = this.queries.length === 0 && performance.now() - this.lastQueryAt >= QUIET_MS;
    const batchPieces = quiet ? this.options.documentBatchPieces : this.options.queryBatchPieces;
    // Until the query thread has the model, a free document thread takes the queries first.
    const stranded = !this.queryLane.loaded && this.queries.some(unsent);
    this.documentLanes.forEach((lane, index) => {
      if (stranded && lane.free) this.feed(lane, this.queries, this.options.queryBatchPieces);
      else if (this.queries.length > 0) lane.idle();
      else if (index === 0 || (quiet && this.secondCore(lane))) this.feed(lane, this.documents, batchPieces);
      else lane.idle();
    });
    this.scheduleRetire();
  }

  /** Whether a document thread past the first may read now: the first has loaded (one load at a time), and the machine has a core for it. */
  private secondCore(lane: ModelLane<Batch>): boolean {
    if (!this.documentLanes[0].loaded) return false;
    const index = this.documentLanes.indexOf(lane);
    const running = this.documentLanes.filter((other) => other.running).length;
    return (this.options.spareCore ?? machineHasSpareCore)(running, index + 1);
  }

  private feed(lane: ModelLane<Batch>, queue: Pending[], batchPieces: number): void {
    const pending = queue.find(unsent);
    if (!pending) return lane.idle();
    // A thread that has not loaded the model yet dispatches again when it has.
    if (!lane.loaded) return lane.wake();
    if (!lane.free) return;
    // Queries take turns batch by batch: a one-line search never waits for all of a chat's sentences.
    if (pending.priority === 'query' && queue.length > 1) queue.push(...queue.splice(queue.indexOf(pending), 1));
    const from = pending.sent;
    const count = Math.min(batchPieces, pending.pieces.length - from);
    pending.sent += count;
    lane.send({ pending, from, count }, pending.pieces.slice(from, from + count));
  }

  /** Ends the document threads that have had nothing to do for documentIdleMs, checking again while one runs. */
  private scheduleRetire(): void {
    if (this.retireTimer || this.closed || !this.documentLanes.some((lane) => lane.running)) return;
    this.retireTimer = setTimeout(() => {
      this.retireTimer = null;
      const now = performance.now();
      for (const lane of this.documentLanes)
        if (lane.free && now - lane.lastUsed >= this.options.documentIdleMs) lane.retire();
      this.dispatch();
    }, this.options.documentIdleMs);
    this.retireTimer.unref();
  }

  private received({ pending, from, count }: Batch, reply: ModelReply): void {
    if ('error' in reply) {
      this.fail(pending, unavailable('The sentence model could not embed the text.'));
    } else if (!pending.settled) {
      for (let n = 0; n < count; n++) {
        const sum = pending.sums[pending.owners[from + n]];
        const row = reply.vectors.subarray(n * SENTENCE_DIMENSION, (n + 1) * SENTENCE_DIMENSION);
        for (let i = 0; i < SENTENCE_DIMENSION; i++) sum[i] += row[i];
      }
      pending.done += count;
      if (pending.done === pending.pieces.length) this.succeed(pending);
    }
    this.dispatch();
  }

  /**
   * A thread ended: the batch it held fails, and the next batch starts a new thread. A thread
   * that ended before loading the model fails every request of its kind waiting (when no
   * document thread has the model), rather than be restarted in a loop while they wait; the
   * next request tries again.
   */
  private stopped(role: ModelPriority, batch: Batch | null, wasLoaded: boolean, code: number): void {
    if (batch)
      this.fail(
        batch.pending,
        unavailable(`The sentence model stopped (exit code ${code}) while embedding; try again.`),
      );
    if (!wasLoaded && !this.closed && !this.documentLanes.some((lane) => lane.loaded)) {
      for (const pending of role === 'query' ? [...this.queries] : [...this.documents])
        this.fail(pending, unavailable('The sentence model could not be started; try again.'));
    }
    this.dispatch();
  }

  private succeed(pending: Pending): void {
    this.settle(pending);
    for (const sum of pending.sums) normalise(sum);
    pending.resolve(pending.sums);
  }

  private fail(pending: Pending, error: Error): void {
    if (pending.settled) return;
    this.settle(pending);
    pending.reject(error);
  }

  private settle(pending: Pending): void {
    pending.settled = true;
    clearTimeout(pending.timer);
    const queue = pending.priority === 'query' ? this.queries : this.documents;
    const at = queue.indexOf(pending);
    if (at >= 0) queue.splice(at, 1);
  }
}

function unsent(pending: Pending): boolean {
  return pending.sent < pending.pieces.length;
}

function normalise(vector: Float32Array): void {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return;
  const inverse = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= inverse;
}
