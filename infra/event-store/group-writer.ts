import type Database from 'better-sqlite3';
import { groupCommitter, type GroupAppend, type GroupOutcome } from './sqlite-log.js';

/** Commits groups of appends to the log, in the order they are sent, answering each in that order. */
export interface GroupWriter {
  write(appends: GroupAppend[]): Promise<GroupOutcome[]>;
  /** Ends the writer; the store waits for the groups it sent to be answered first. */
  close(): Promise<void>;
}

/** Commits on the store's own connection, on the calling thread. */
export class InlineGroupWriter implements GroupWriter {
  private readonly commit: (appends: GroupAppend[]) => GroupOutcome[];

  constructor(db: Database.Database) {
    this.commit = groupCommitter(db);
  }

  async write(appends: GroupAppend[]): Promise<GroupOutcome[]> {
    return this.commit(appends);
  }

  async close(): Promise<void> {}
}
