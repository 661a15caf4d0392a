import type { Worker } from 'node:worker_threads';
import type { SentenceModelSpec } from './model-files.js';
import type { ModelClose, ModelLoaded, ModelReply, ModelRequest } from './protocol.js';
import { startModelThread } from './start-thread.js';

/** What a lane tells the model that owns it. */
export interface LaneEvents<Batch> {
  /** The thread has loaded the model (or failed to: its batches then answer with errors); it may be sent a batch. */
  loaded(): void;
  /** The batch's reply: its vectors row after row, or an error. */
  replied(batch: Batch, reply: ModelReply): void;
  /** The thread ended; `batch` is the one it held (it failed), `wasLoaded` whether it had loaded the model. */
  stopped(batch: Batch | null, wasLoaded: boolean, code: number): void;
}

export interface LaneLimits {
  threadScript?: URL;
  /** The model the thread loads. */
  spec: SentenceModelSpec;
  /** The longest one batch may hold the thread before it is taken for hung and stopped. */
  batchTimeoutMs: number;
  /** What a new thread may take to load the model. */
  startTimeoutMs: number;
  /** What a thread asked to close may take to end its batch and release the model before it is terminated. */
  closeTimeoutMs: number;
}

/**
 * One model thread and the one batch it holds at a time. The thread starts when woken or sent a
 * batch, and again after it ended; a batch past its deadline, or a load past its own, gets the
 * thread given up: reported at once as stopped with the batch it held, asked to close, and the
 * next batch starts a new thread. `retire` ends an idle thread (its model's memory goes with it)
 * without reporting anything. A thread is asked to close rather than terminated (ModelClose), and
 * terminated only when it has not ended closeTimeoutMs later (its JavaScript is stuck).
 */
export class ModelLane<Batch> {
  private worker: Worker | null = null;
  private loadedNow = false;
  private flight: { id: number; batch: Batch; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;
  /** When the lane last ended a batch or started its thread (performance.now()). */
  lastUsed = 0;
  threadsStarted = 0;

  constructor(
    private readonly limits: LaneLimits,
    private readonly events: LaneEvents<Batch>,
  ) {}

  /** Whether a batch may be sent now: the thread has loaded the model and holds no batch. */
  get free(): boolean {
    return this.loadedNow && this.flight === null;
  }

  get loaded(): boolean {
    return this.loadedNow;
  }

  /** Whether a thread runs (loading the model or loaded). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Starts the thread if none runs (its "loaded" event follows); keeps the process alive while work waits. */
  wake(): void {
    this.thread().ref();
  }

  /** Lets the process exit while the lane has nothing to do. */
  idle(): void {
    if (!this.flight) this.worker?.unref();
  }

  send(batch: Batch, texts: string[]): void {
    const worker = this.thread();
    worker.ref();
    const id = this.nextId++;
    this.flight = { id, batch, timer: setTimeout(() => this.giveUp(worker, 1), this.limits.batchTimeoutMs) };
    worker.postMessage({ id, texts } satisfies ModelRequest);
  }

  /** Ends the thread if it holds no batch: its exit is not reported, and the next batch starts a new one. */
  retire(): void {
    if (this.flight || !this.worker) return;
    void this.close();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.detach();
    if (worker) await this.stop(worker);
  }

  /** Forgets the thread and the batch it held (its deadline cleared), saying what they were. */
  private detach(): { batch: Batch | null; wasLoaded: boolean } {
    const flight = this.flight;
    const wasLoaded = this.loadedNow;
    this.worker = null;
    this.loadedNow = false;
    this.flight = null;
    if (flight) clearTimeout(flight.timer);
    return { batch: flight?.batch ?? null, wasLoaded };
  }

  /**
   * A thread past a deadline: reported now as stopped (`code` stands for its exit), with the
   * batch it held, and asked to close; its own exit, later, is not reported again.
   */
  private giveUp(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    const { batch, wasLoaded } = this.detach();
    void this.stop(worker);
    this.events.stopped(batch, wasLoaded, code);
  }

  /** Asks the thread to close, terminating it only if it has not ended closeTimeoutMs later. */
  private stop(worker: Worker): Promise<void> {
    return new Promise((resolve) => {
      // An ended thread's id is -1: it will not say so again.
      if (worker.threadId < 0) return resolve();
      const stuck = setTimeout(() => void worker.terminate(), this.limits.closeTimeoutMs);
      stuck.unref();
      worker.once('exit', () => {
        clearTimeout(stuck);
        resolve();
      });
      // Until it has ended: the process waits for the model to be released.
      worker.ref();
      worker.postMessage({ close: true } satisfies ModelClose);
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startModelThread(this.limits.spec, this.limits.threadScript);
    this.threadsStarted++;
    this.loadedNow = false;
    this.lastUsed = performance.now();
    const startTimer = setTimeout(() => this.giveUp(worker, 1), this.limits.startTimeoutMs);
    worker.on('message', (message: ModelReply | ModelLoaded) => {
      if (this.worker !== worker) return;
      if ('loaded' in message) {
        clearTimeout(startTimer);
        this.loadedNow = true;
        this.lastUsed = performance.now();
        this.events.loaded();
        return;
      }
      const flight = this.flight;
      if (!flight || flight.id !== message.id) return;
      clearTimeout(flight.timer);
      this.flight = null;
      this.lastUsed = performance.now();
      this.events.replied(flight.batch, message);
    });
    // An uncaught error in the thread is followed by its exit, handled there.
    worker.on('error', () => {});
    worker.on('exit', (code) => {
      clearTimeout(startTimer);
      if (this.worker !== worker) return;
      const { batch, wasLoaded } = this.detach();
      this.events.stopped(batch, wasLoaded, code);
    });
    this.worker = worker;
    return worker;
  }
}
