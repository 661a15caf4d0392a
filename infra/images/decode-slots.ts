/**
 * A first-in first-out semaphore capping how many images are decoded at once. A viewer opening a deep zoom image
 * asks for dozens of tiles together; each render holds decoded pixels (and libvips threads), so without a cap a
 * burst of requests, or several viewers, could exhaust memory. Requests beyond the cap wait in arrival order. No
 * semaphore existed in the tree (p-map limits one batch it maps, not callers arriving over time); the queue is
 * `infra/fifo.ts`.
 */
import os from 'node:os';
import { Fifo } from '../fifo.js';

/** At least 2, else one per core: libvips parallelises inside a render too. */
export const DEFAULT_DECODE_SLOTS = Math.max(2, os.availableParallelism());

export class DecodeSlots {
  private running = 0;
  private readonly queue = new Fifo<() => void>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`DecodeSlots needs a positive integer, not ${max}`);
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` once a slot is free and answers what it answers; the slot is freed however it ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.max) this.running += 1;
    else await new Promise<void>((resolve) => this.queue.push(resolve)); // the slot is handed over by release()
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.queue.take();
    if (next === undefined) this.running -= 1;
    else next();
  }
}
