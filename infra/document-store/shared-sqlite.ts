import { statSync } from 'node:fs';
import type { CollectionOptions, DocumentStore } from './port.js';
import { SqliteDocumentStore } from './sqlite.js';

interface Opened {
  store: SqliteDocumentStore;
  users: number;
  /** The file's inode when opened: a file deleted and made anew at the path is another file. */
  inode: number;
}

function inodeOf(file: string): number | null {
  try {
    return statSync(file).ino;
  } catch {
    return null;
  }
}

const openByFile = new Map<string, Opened>();

/**
 * The read-model file as this process's runtimes share it: one connection per file. Two
 * connections of one thread would wait for each other's write transaction (held up to the
 * store's commit interval) inside SQLite's busy handler, which blocks the very thread that
 * would commit: a second runtime on the same DATA_DIR (tests, a CLI run in-process) would never
 * get the lock. Other processes have their own connection and wait at most a commit interval.
 */
export function sharedSqliteDocumentStore(file: string): DocumentStore {
  let opened = openByFile.get(file);
  if (!opened || opened.inode !== inodeOf(file)) {
    const store = new SqliteDocumentStore(file);
    opened = { store, users: 0, inode: inodeOf(file) ?? -1 };
    openByFile.set(file, opened);
  }
  opened.users++;
  const mine = opened;
  const { store } = mine;
  let closed = false;
  return {
    persistent: true,
    collection: (name: string, options?: CollectionOptions) => store.collection(name, options),
    dropAll: (options) => store.dropAll(options),
    batch: (work) => store.batch(work),
    settled: () => store.settled(),
    deferSync: (work) => store.deferSync(work),
    changeMark: () => store.changeMark(),
    watchCommits: (watcher) => store.watchCommits(watcher),
    storageFailure: () => store.storageFailure(),
    async close() {
      if (closed) return;
      closed = true;
      if (--mine.users > 0) return;
      if (openByFile.get(file) === mine) openByFile.delete(file);
      await mine.store.close();
    },
  };
}
