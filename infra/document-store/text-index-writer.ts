import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../worker-thread.js';
import type { TextIndexReply, TextIndexRequest, TextIndexThreadData } from './text-index-messages.js';
import { errorMessage } from '../../infra/errors.js';

/** The text index thread's script, from the project root. */
export const TEXT_INDEX_THREAD = 'infra/document-store/text-index-thread';

/**
 * How long the thread may sit with nothing asked of it before it ends: a server that only
 * reads keeps no thread (and its heap) for the text index, and the next write starts one again.
 */
const IDLE_MS = 10_000;

/** What a text index hears back from the thread. */
export interface TextIndexListener {
  indexed(rows: readonly number[]): void;
  recreated(): void;
  /** The thread failed: what it was asked and had not reported is to be asked of the next. */
  lost(): void;
}

/** How long after a failed thread the next is started: a failure that repeats (a full disk) does not spin. */
const RETRY_MS = 1000;

/**
 * The main thread's side of the text index thread (text-index-thread.ts) of one read-model
 * file: starts it when there is work, sends it requests in order, routes its answers to each
 * collection's text index, and ends it when idle or closed. A thread that fails is started
 * again by the next request; what it had not indexed is still owed, so nothing is lost.
 */
export class TextIndexWriter {
  private thread: Worker | null = null;
  /** Requests sent and not yet answered in full: the thread is not idle while any is. */
  private outstanding = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly listeners = new Map<string, TextIndexListener>();
  private droppedAll: { resolve(): void; reject(error: Error): void }[] = [];
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly data: TextIndexThreadData) {}

  listen(table: string, listener: TextIndexListener): void {
    this.listeners.set(table, listener);
  }

  /** Closed: nothing more is sent (marks made now stay owed, for the next start). */
  private closed = false;

  /** False inside SqliteDocumentStore.deferSync: the thread's commits skip their fsync. */
  private durable = true;

  setDurable(durable: boolean): void {
    this.durable = durable;
  }

  send(request: TextIndexRequest): void {
    if (this.closed) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.outstanding++;
    this.started().postMessage(request.op === 'index' ? { ...request, durable: this.durable } : request);
  }

  /** True while a drop of every table is asked and not yet done. */
  get droppingAll(): boolean {
    return this.droppedAll.length > 0;
  }

  /** Drops every table of the text file; resolves once the thread has. */
  dropAll(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The read models are closed.'));
    return new Promise((resolve, reject) => {
      this.droppedAll.push({ resolve, reject });
      this.send({ op: 'drop-all' });
    });
  }

  private started(): Worker {
    if (this.thread) return this.thread;
    const thread = startWorkerThread(import.meta.url, TEXT_INDEX_THREAD, this.data);
    thread.on('message', (reply: TextIndexReply) => this.received(reply, thread));
    thread.on('error', (error) => this.failed(thread, error));
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.once('exit', () => {
      if (this.thread === thread) this.failed(thread, new Error('The text index thread ended unasked.'));
    });
    this.thread = thread;
    return thread;
  }

  private received(reply: TextIndexReply, from: Worker): void {
    switch (reply.op) {
      case 'indexed':
        if (reply.rows.length > 0) this.listeners.get(reply.table)?.indexed(reply.rows);
        if (reply.last) this.answered();
        return;
      case 'recreated':
        this.listeners.get(reply.table)?.recreated();
        this.answered();
        return;
      case 'dropped-all':
        this.droppedAll.shift()?.resolve();
        this.answered();
        return;
      case 'failed':
        this.failed(from, new Error(reply.message));
        void from.terminate();
    }
  }

  private answered(): void {
    this.outstanding--;
    if (this.outstanding > 0 || !this.thread) return;
    this.idleTimer = setTimeout(() => this.end(), IDLE_MS).unref();
  }

  /**
   * Requests not answered are lost with the thread; their rows stay owed, in the file and here,
   * so searches stay right. The failure is reported as a process warning (the store has no
   * logger), and a second later each text index asks a new thread for what it still owes.
   */
  private failed(thread: Worker, error: unknown): void {
    if (this.thread !== thread) return;
    this.thread = null;
    this.outstanding = 0;
    const message = errorMessage(error);
    for (const waiter of this.droppedAll.splice(0)) waiter.reject(new Error(message));
    process.emitWarning(`The read models' text index thread failed; it is started again: ${message}`);
    // Not unref'd: a CLI waiting for the index to settle must not end meanwhile.
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      for (const listener of this.listeners.values()) listener.lost();
    }, RETRY_MS);
  }

  private retryTimer: NodeJS.Timeout | null = null;

  private end(): void {
    this.idleTimer = null;
    const thread = this.thread;
    if (!thread) return;
    this.thread = null;
    thread.postMessage({ op: 'close' } satisfies TextIndexRequest);
  }

  /** Lets the thread finish what it was asked, then ends it. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    // Its answers still arrive until it exits: the rows they name are settled meanwhile.
    this.end();
    await this.exited;
  }
}
