import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { CheckpointRequests } from './checkpoint-requests.js';
import { groupCommitter, openEventLog, type GroupAppend } from './sqlite-log.js';
import type { CommitReply, CommitThreadData } from './thread-group-writer.js';
import { errorMessage } from '../../infra/errors.js';

/**
 * The event log's commit thread: its own connection to the log file, committing each group
 * the store's thread sends and answering what became of every append. Null asks it to close.
 * Checkpoints run on a thread of their own (checkpoint-thread.ts), so a group never waits
 * behind one.
 */
if (!parentPort) throw new Error('commit-thread.ts runs as a worker thread.');
const port = parentPort;
// Handed over by this process's event store, not read from outside it: taken as its type.
const { file } = workerData as CommitThreadData;
const db = openEventLog(file);
const checkpoints = new CheckpointRequests(file, db);
const commit = groupCommitter(db);

async function close(): Promise<void> {
  await checkpoints.close();
  db.close();
  port.close();
}

port.on('message', (appends: GroupAppend[] | null) => {
  if (appends === null) {
    void close();
    return;
  }
  let reply: CommitReply;
  try {
    reply = { outcomes: commit(appends) };
  } catch (error) {
    reply = {
      error: {
        message: errorMessage(error),
        code: error instanceof Database.SqliteError ? error.code : undefined,
      },
    };
  }
  port.postMessage(reply);
  checkpoints.committed();
});
