import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { groupCommitter, openEventLog, type GroupAppend } from './sqlite-log.js';
import type { CommitReply, CommitThreadData } from './thread-group-writer.js';

/**
 * The event log's commit thread: its own connection to the log file, committing each group
 * the store's thread sends and answering what became of every append. Null asks it to close.
 */
const port = parentPort;
if (!port) throw new Error('commit-thread.ts runs as a worker thread.');
const db = openEventLog((workerData as CommitThreadData).file);
const commit = groupCommitter(db);

port.on('message', (appends: GroupAppend[] | null) => {
  if (appends === null) {
    db.close();
    port.close();
    return;
  }
  let reply: CommitReply;
  try {
    reply = { outcomes: commit(appends) };
  } catch (error) {
    reply = {
      error: {
        message: error instanceof Error ? error.message : String(error),
        code: error instanceof Database.SqliteError ? error.code : undefined,
      },
    };
  }
  port.postMessage(reply);
});
