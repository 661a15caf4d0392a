import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openEventLog } from './sqlite-log.js';

export interface CheckpointThreadData {
  file: string;
}

/**
 * The event log's checkpoint thread, started by the commit thread: its own connection, copying
 * committed WAL frames into the database file each time the commit thread says enough has been
 * written. A PASSIVE checkpoint never blocks the writer, so the two fsyncs each checkpoint
 * makes (milliseconds here) no longer hold every group waiting behind them. `true` asks for a
 * checkpoint; null asks the thread to close once the one running is done.
 */
const port = parentPort;
if (!port) throw new Error('checkpoint-thread.ts runs as a worker thread.');
// Handed over by this process's event store, not read from outside it: taken as its type.
const db = openEventLog((workerData as CheckpointThreadData).file);

port.on('message', (first: true | null) => {
  // Requests that queued while a checkpoint ran are served by the next one.
  let closing = first === null;
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    if (next.message === null) closing = true;
  }
  if (!closing) {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Nothing is lost: the frames stay in the WAL, and the commit thread's own checkpoint,
      // past its cap, copies them.
    }
    return;
  }
  db.close();
  port.close();
});
