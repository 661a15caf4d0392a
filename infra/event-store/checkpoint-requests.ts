import type Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import type { CheckpointThreadData } from './checkpoint-thread.js';
import { startEventLogThread } from './start-thread.js';

/**
 * Commits between two requests to the checkpoint thread: about as many WAL pages as SQLite's
 * own automatic checkpoint waits for (1,000) when the groups hold a few posts each.
 */
const COMMITS_PER_CHECKPOINT = 128;
/**
 * The WAL restarts from its beginning only after a checkpoint that copied every frame, with no
 * commit between; under steady writes the checkpoint thread never gets there. Past this many
 * pages (64 MiB), the writing connection checkpoints itself (SQLite's automatic checkpoint),
 * copying the few frames the checkpoint thread has not, and the WAL starts over.
 */
const WAL_PAGES_CAP = 16_384;

/**
 * The event log writer's checkpoints, moved to a thread of their own (checkpoint-thread.ts): the
 * writing connection's automatic checkpoint waits for WAL_PAGES_CAP pages, and every
 * COMMITS_PER_CHECKPOINT commits the thread is asked for a PASSIVE one. So a commit never waits
 * behind a checkpoint's fsyncs. The thread starts on first use, again should it ever stop, and
 * never holds the process open.
 */
export class CheckpointRequests {
  private thread: Worker | null = null;
  private commits = 0;

  constructor(
    private readonly file: string,
    writer: Database.Database,
  ) {
    writer.pragma(`wal_autocheckpoint = ${WAL_PAGES_CAP}`);
  }

  /** Counts a commit of the writer, asking for a checkpoint every COMMITS_PER_CHECKPOINT. */
  committed(): void {
    this.commits += 1;
    if (this.commits < COMMITS_PER_CHECKPOINT) return;
    this.commits = 0;
    this.threadStarted().postMessage(true);
  }

  private threadStarted(): Worker {
    if (this.thread) return this.thread;
    const thread = startEventLogThread('checkpoint-thread', { file: this.file } satisfies CheckpointThreadData);
    thread.unref();
    // A thread that fails is started again at the next request; the cap bounds the WAL meanwhile.
    thread.on('error', () => {});
    thread.once('exit', () => {
      if (this.thread === thread) this.thread = null;
    });
    this.thread = thread;
    return thread;
  }

  /** Lets the checkpoint running finish, then ends the thread. */
  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (!thread) return;
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    // Held until it has exited: unreferenced, the process could end first, with close unanswered.
    thread.ref();
    thread.postMessage(null);
    await exited;
  }
}
