import Database from 'better-sqlite3';
import { parentPort, workerData, type Worker } from 'node:worker_threads';
import type { CheckpointThreadData } from './checkpoint-thread.js';
import { groupCommitter, openEventLog, type GroupAppend } from './sqlite-log.js';
import { startEventLogThread } from './start-thread.js';
import type { CommitReply, CommitThreadData } from './thread-group-writer.js';

/**
 * Commits between two requests to the checkpoint thread: about as many WAL pages as SQLite's
 * own automatic checkpoint waits for (1,000) when the groups hold a few posts each.
 */
const COMMITS_PER_CHECKPOINT = 128;
/**
 * The WAL restarts from its beginning only after a checkpoint that copied every frame, with no
 * commit between; under steady writes the checkpoint thread never gets there. Past this many
 * pages (64 MiB), this connection checkpoints itself (SQLite's automatic checkpoint), copying
 * the few frames the checkpoint thread has not, and the WAL starts over.
 */
const WAL_PAGES_CAP = 16_384;

/**
 * The event log's commit thread: its own connection to the log file, committing each group
 * the store's thread sends and answering what became of every append. Null asks it to close.
 * Checkpoints run on a thread of their own (checkpoint-thread.ts), so a group never waits
 * behind one.
 */
if (!parentPort) throw new Error('commit-thread.ts runs as a worker thread.');
const port = parentPort;
const { file } = workerData as CommitThreadData;
const db = openEventLog(file);
db.pragma(`wal_autocheckpoint = ${WAL_PAGES_CAP}`);
const commit = groupCommitter(db);

let checkpointThread: Worker | null = null;
let commitsSinceCheckpoint = 0;

/** Started on first use, and again should it ever stop: the cap keeps the WAL bounded meanwhile. */
function requestCheckpoint(): void {
  if (!checkpointThread) {
    const thread = startEventLogThread('checkpoint-thread', { file } satisfies CheckpointThreadData);
    thread.on('error', () => {});
    thread.once('exit', () => {
      if (checkpointThread === thread) checkpointThread = null;
    });
    checkpointThread = thread;
  }
  checkpointThread.postMessage(true);
}

async function close(): Promise<void> {
  const thread = checkpointThread;
  checkpointThread = null;
  if (thread) {
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    thread.postMessage(null);
    await exited;
  }
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
        message: error instanceof Error ? error.message : String(error),
        code: error instanceof Database.SqliteError ? error.code : undefined,
      },
    };
  }
  port.postMessage(reply);
  commitsSinceCheckpoint += 1;
  if (commitsSinceCheckpoint >= COMMITS_PER_CHECKPOINT) {
    commitsSinceCheckpoint = 0;
    requestCheckpoint();
  }
});
