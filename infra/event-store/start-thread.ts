import type { Worker } from 'node:worker_threads';
import { compiledThreadScript, startWorkerThread } from '../worker-thread.js';

/** The event log's threads, each a script beside this file. */
export type EventLogThread = 'commit-thread' | 'checkpoint-thread';

/** A thread's compiled script, from the project root (where tsc writes it). */
export function compiledEventLogThread(thread: EventLogThread): string {
  return compiledThreadScript(`infra/event-store/${thread}`);
}

/** Starts one of the event log's threads (see startWorkerThread). */
export function startEventLogThread(thread: EventLogThread, workerData: unknown): Worker {
  return startWorkerThread(import.meta.url, `infra/event-store/${thread}`, workerData);
}
