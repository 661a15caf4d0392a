import type { Worker } from 'node:worker_threads';
import { DependencyUnavailableError } from '../../errors.js';
import { piecesOf } from './pieces.js';
import { SENTENCE_DIMENSION, type ModelLoaded, type ModelReply, type ModelRequest } from './protocol.js';
import { startModelThread } from './start-thread.js';

export type ModelPriority = 'query' | 'document';

export interface SentenceModelOptions {
  /** The thread's script; tests give one that misbehaves. */
  threadScript?: URL;
  /** The longest a query waits for its vector, start of a new thread included. */
  queryTimeoutMs?: number;
  /** The longest a batch of documents waits, plus PER_PIECE_MS for each of its pieces. */
  documentTimeoutMs?: number;
  /** The longest one batch may hold the thread (the model loaded) before it is taken for hung and replaced. */
  batchTimeoutMs?: number;
  /** Pieces sent to the thread at once: a query waits behind at most one such batch. */
  batchPieces?: number;
  /** What a new thread may take to load the model (about a second, far more on a busy machine), on top of the other limits. */
  startTimeoutMs?: number;
}

const DEFAULTS = { queryTimeoutMs: 10_000, documentTimeoutMs: 60_000, batchTimeoutMs: 20_000, batchPieces: 2, startTimeoutMs: 30_000 };
/** A piece takes about 50 ms on one core; this leaves room for a busy machine. */
const PER_PIECE_MS = 1_000;

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

interface InFlight {
  id: number;
  pending: Pending;
  from: number;
  count: number;
  timer: NodeJS.Timeout;
}

function unavailable(message: string): DependencyUnavailableError {
  return new DependencyUnavailableError('sentence model', message);
}

/**
 * The sentence model on a worker thread, so no request waits on the event loop behind an
 * embedding. Texts are cut into bounded pieces (a text's vector is the normalised mean of its
 * pieces'), pieces go to the thread in small batches one at a time, and queries are sent before
 * documents, so a question waits at most for one batch. Every wait is bounded: a request past
 * its deadline is refused with a 503, a batch past its own deadline gets the thread replaced,
 * and a thread that stops fails the request it was serving; the next request starts a new one.
 */
export class SentenceModel {
  readonly dimension = SENTENCE_DIMENSION;
  private readonly options: typeof DEFAULTS & { threadScript?: URL };
  private worker: Worker | null = null;
  /** Whether the current thread has loaded the model. */
  private loaded = false;
  private readonly queries: Pending[] = [];
  private readonly documents: Pending[] = [];
  private inFlight: InFlight | null = null;
  private nextId = 1;
  private closed = false;
  /** Threads started so far (tests check a crashed one is replaced). */
  threadsStarted = 0;

  constructor(options: SentenceModelOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  embed(texts: string[], priority: ModelPriority): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(unavailable('The sentence model is closed.'));
    const pieces: string[] = [];
    const owners: number[] = [];
    texts.forEach((text, index) => {
      for (const piece of piecesOf(text)) {
        pieces.push(piece);
        owners.push(index);
      }
    });
    const sums = texts.map(() => new Float32Array(SENTENCE_DIMENSION));
    if (pieces.length === 0) return Promise.resolve(sums);
    const timeoutMs =
      (priority === 'query' ? this.options.queryTimeoutMs : this.options.documentTimeoutMs + PER_PIECE_MS * pieces.length) +
      (this.loaded ? 0 : this.options.startTimeoutMs);
    return new Promise<Float32Array[]>((resolve, reject) => {
      const pending: Pending = {
        priority, pieces, owners, sums, sent: 0, done: 0, settled: false, resolve, reject,
        timer: setTimeout(() => this.fail(pending, unavailable('The sentence model did not answer in time; try again.')), timeoutMs),
      };
      (priority === 'query' ? this.queries : this.documents).push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of [...this.queries, ...this.documents]) this.fail(pending, unavailable('The sentence model is closed.'));
    const worker = this.worker;
    this.worker = null;
    if (this.inFlight) clearTimeout(this.inFlight.timer);
    this.inFlight = null;
    if (worker) await worker.terminate();
  }

  /**
   * Sends the next batch when the thread is free and has loaded the model (its message listener
   * is in place from then on): pieces of a query first (queries in turn), else of the oldest documents.
   */
  private dispatch(): void {
    if (this.inFlight || this.closed) return;
    const pending = this.queries.find(unsent) ?? this.documents.find(unsent);
    if (!pending) {
      this.worker?.unref();
      return;
    }
    const worker = this.thread();
    worker.ref();
    // The thread's "loaded" message dispatches again.
    if (!this.loaded) return;
    // Queries take turns batch by batch: a one-line search never waits for all of a chat's sentences.
    if (pending.priority === 'query' && this.queries.length > 1) this.queries.push(...this.queries.splice(this.queries.indexOf(pending), 1));
    const from = pending.sent;
    const count = Math.min(this.options.batchPieces, pending.pieces.length - from);
    const id = this.nextId++;
    pending.sent += count;
    this.inFlight = {
      id, pending, from, count,
      timer: setTimeout(() => void worker.terminate(), this.options.batchTimeoutMs),
    };
    worker.postMessage({ id, texts: pending.pieces.slice(from, from + count) } satisfies ModelRequest);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startModelThread(this.options.threadScript);
    this.threadsStarted++;
    this.loaded = false;
    // A thread that cannot load the model in time is stopped; its exit fails what waits for it.
    const startTimer = setTimeout(() => void worker.terminate(), this.options.startTimeoutMs);
    worker.on('message', (message: ModelReply | ModelLoaded) => {
      if (this.worker !== worker) return;
      if ('loaded' in message) {
        clearTimeout(startTimer);
        this.loaded = true;
        this.dispatch();
      } else {
        this.received(message);
      }
    });
    // An uncaught error in the thread is followed by its exit, handled there.
    worker.on('error', () => {});
    worker.on('exit', (code) => {
      clearTimeout(startTimer);
      this.stopped(worker, code);
    });
    this.worker = worker;
    return worker;
  }

  private received(reply: ModelReply): void {
    const flight = this.inFlight;
    if (!flight || flight.id !== reply.id) return;
    clearTimeout(flight.timer);
    this.inFlight = null;
    const { pending } = flight;
    if ('error' in reply) {
      this.fail(pending, unavailable('The sentence model could not embed the text.'));
    } else if (!pending.settled) {
      for (let n = 0; n < flight.count; n++) {
        const sum = pending.sums[pending.owners[flight.from + n]];
        const row = reply.vectors.subarray(n * SENTENCE_DIMENSION, (n + 1) * SENTENCE_DIMENSION);
        for (let i = 0; i < SENTENCE_DIMENSION; i++) sum[i] += row[i];
      }
      pending.done += flight.count;
      if (pending.done === pending.pieces.length) this.succeed(pending);
    }
    this.dispatch();
  }

  /**
   * The thread ended: the batch it held fails, and the next batch starts a new thread. A thread
   * that ended before loading the model fails every request waiting, rather than be restarted
   * in a loop while they wait; the next request tries again.
   */
  private stopped(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const wasLoaded = this.loaded;
    this.loaded = false;
    const flight = this.inFlight;
    this.inFlight = null;
    if (flight) {
      clearTimeout(flight.timer);
      this.fail(flight.pending, unavailable(`The sentence model stopped (exit code ${code}) while embedding; try again.`));
    }
    if (!wasLoaded && !this.closed) {
      for (const pending of [...this.queries, ...this.documents]) this.fail(pending, unavailable('The sentence model could not be started; try again.'));
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
