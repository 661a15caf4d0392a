import Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import type { GroupWriter } from './group-writer.js';
import type { GroupAppend, GroupOutcome } from './sqlite-log.js';
import { startEventLogThread } from './start-thread.js';

export interface CommitThreadData {
  file: string;
}

/** The commit thread's answer to one group: every append's outcome, or why the whole group failed. */
export type CommitReply = { outcomes: GroupOutcome[] } | { error: { message: string; code?: string } };

interface Waiting {
  resolve(outcomes: GroupOutcome[]): void;
  reject(error: unknown): void;
}

function errorOf(reply: { message: string; code?: string }): Error {
  return reply.code ? new Database.SqliteError(reply.message, reply.code) : new Error(reply.message);
}

/**
 * Commits on a worker thread with its own connection, so the SQLite work of a group (the
 * inserts, the commit's WAL writes, a checkpoint now and then) runs beside the event loop
 * instead of on it. The thread is started with the store and held only while a group is out,
 * so an idle store never keeps the process alive. Should it stop, the group out is refused
 * and the next group starts a new one.
 */
export class ThreadGroupWriter implements GroupWriter {
  private worker: Worker | null;
  /** Groups sent, in the order sent: the thread answers them in that order. */
  private readonly waiting: Waiting[] = [];
  private closed = false;

  constructor(private readonly file: string) {
    this.worker = this.start();
  }

  private start(): Worker {
    const worker = startEventLogThread('commit-thread', { file: this.file } satisfies CommitThreadData);
    worker.unref();
    worker.on('message', (reply: CommitReply) => {
      const waiting = this.waiting.shift();
      if (this.waiting.length === 0) worker.unref();
      if ('error' in reply) waiting?.reject(errorOf(reply.error));
      else waiting?.resolve(reply.outcomes);
    });
    worker.on('error', (error) => this.refuseWaiting(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      this.refuseWaiting(new Error(`The event log's commit thread stopped (exit code ${code}) before answering.`));
    });
    return worker;
  }

  /** The thread failed: whether the groups out were committed is unknown, so none is acknowledged. */
  private refuseWaiting(error: unknown): void {
    for (const waiting of this.waiting.splice(0)) waiting.reject(error);
  }

  write(appends: GroupAppend[]): Promise<GroupOutcome[]> {
    if (this.closed) return Promise.reject(new Error('The event log is closed.'));
    return new Promise<GroupOutcome[]>((resolve, reject) => {
      const worker = (this.worker ??= this.start());
      try {
        worker.postMessage(appends);
      } catch (error) {
        reject(error);
        return;
      }
      this.waiting.push({ resolve, reject });
      worker.ref();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage(null);
    await exited;
  }
}
