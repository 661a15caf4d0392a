import type Database from 'better-sqlite3';
import type { CheckpointRequests } from './checkpoint-requests.js';
import { groupCommitter, type GroupAppend, type GroupOutcome } from './sqlite-log.js';

/** Commits groups of appends to the log, in the order they are sent, answering each in that order. */
export interface GroupWriter {
  write(appends: GroupAppend[]): Promise<GroupOutcome[]>;
  /** Ends the writer; the store waits for the groups it sent to be answered first. */
  close(): Promise<void>;
}

/**
 * Commits on the store's own connection, on the calling thread; with `checkpoints`, the WAL's
 * checkpoints run on a thread of their own instead of inside a commit now and then.
 */
export class InlineGroupWriter implements GroupWriter {
  private readonly commit: (appends: GroupAppend[]) => GroupOutcome[];

  constructor(
    db: Database.Database,
    private readonly checkpoints: CheckpointRequests | null = null,
  ) {
    this.commit = groupCommitter(db);
  }

  async write(appends: GroupAppend[]): Promise<GroupOutcome[]> {
    const outcomes = this.commit(appends);
    this.checkpoints?.committed();
    return outcomes;
  }

  async close(): Promise<void> {
    await this.checkpoints?.close();
  }
}
