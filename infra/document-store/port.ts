import type { StorageFailure } from '../storage-errors.js';

/** A read-model document: `_id` is its key inside the collection. */
export interface Document {
  _id: string | number;
  [key: string]: unknown;
}

/** Mongo filter syntax: mingo in the in-memory store, the subset of sql-filter.ts in SQLite, MongoDB in production. */
export type Filter = Record<string, unknown>;

/** Mongo update operators, e.g. {$set: {...}, $unset: {...}, $inc: {...}, $pull: {...}}. */
export type Update = Record<string, Record<string, unknown>>;

export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions extends TextQuery {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  /**
   * Top-level fields to read: each document comes back with `_id` and those of them it holds, so
   * a caller listing ids does not read (and SQLite does not parse) whole documents.
   */
  fields?: readonly string[];
}

/** A find with `fields`: `_id` and the fields asked for. */
export type FindFieldsOptions<K extends string> = FindOptions & { fields: readonly K[] };

/**
 * A text search: documents where one of the collection's declared text fields holds `text` as
 * a substring, case aside as JavaScript sees it (`field.toLowerCase().includes(text.toLowerCase())`).
 * An empty text matches every document; a collection without text fields refuses one.
 */
export interface TextQuery {
  text?: string;
}

/**
 * A read-model collection. Documents handed out are the store's own: callers must not
 * mutate them (the embedded store would see the change).
 */
export interface Collection<T extends Document> {
  findOne(filter: Filter): Promise<T | null>;
  find<K extends keyof T & string>(filter: Filter, options: FindFieldsOptions<K>): Promise<Pick<T, K | '_id'>[]>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter?: Filter, options?: TextQuery): Promise<number>;
  /** Inserts or replaces the document with the same _id; the caller must not change it afterwards. */
  put(doc: T): Promise<void>;
  /**
   * Adds the document unless one with its _id is there, answering whether it did: of writers
   * racing to add one (servers on one MongoDB database), exactly one does. The caller must not
   * change it afterwards.
   */
  insert(doc: T): Promise<boolean>;
  putMany(docs: T[]): Promise<void>;
  updateOne(filter: Filter, update: Update): Promise<number>;
  updateMany(filter: Filter, update: Update): Promise<number>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  drop(): Promise<void>;
}

/** One field, or several in order (a compound index): top-level fields holding strings, numbers or null. */
export type IndexSpec = string | readonly string[];

export interface CollectionOptions {
  /**
   * The fields the queries look documents up and sort by. The SQLite store creates an index on
   * each (once) and refuses documents holding an array, object or boolean in one of them, so
   * its filters compare them plainly; MongoDB creates them before a collection's first use (and
   * again after a drop); the in-memory store ignores the list.
   */
  indexes?: readonly IndexSpec[];
  /**
   * Top-level string fields a text search (FindOptions.text) looks in. SQLite keeps a trigram
   * FTS5 index of them in the same file, written with each document; MongoDB matches an escaped
   * case-insensitive $regex; the in-memory store compares in JavaScript. Pass the same constant
   * object on every call, as with `indexes`.
   */
  textSearch?: TextSearchSpec;
  /**
   * Top-level fields holding arrays of strings or numbers (`site_ids`, `tag_slugs`) that filters
   * test by equality or `$in` (an element equal to the value). SQLite keeps each element in a
   * side table indexed by value, written with each document, instead of opening every
   * document's array; MongoDB keeps an index of the field, multikey (one entry per element),
   * made as for `indexes`; the in-memory store ignores
   * it. Pass the same constant array on every call, as with `indexes`.
   */
  elementIndexes?: readonly string[];
}

export interface TextSearchSpec {
  fields: readonly string[];
}

export interface DropAllOptions {
  /** Collections left as they are, with their documents and indexes. */
  keep?: readonly string[];
}

export interface DocumentStore {
  collection<T extends Document>(name: string, options?: CollectionOptions): Collection<T>;
  /**
   * Drops every collection (read models are disposable: the log rebuilds them) but those named
   * in `keep` (a rebuild keeps what is not only a fold of the log: see Projection.keptByRebuild).
   */
  dropAll(options?: DropAllOptions): Promise<void>;
  /** True when read models survive a restart (SQLite, MongoDB); false for the in-memory store. */
  readonly persistent: boolean;
  /**
   * Runs `work` so that every write it makes commits together, or none does: the projection
   * runner folds a batch of events and saves its checkpoints inside one, so a crash never leaves
   * a checkpoint without the documents it covers (nor, in SQLite, documents without their
   * checkpoint). Not a rollback: writes made before `work` throws still commit with the rest
   * (projections are idempotent, so the batch is simply applied again). SQLite keeps the
   * documents read and written by key inside a batch and writes each once when it ends (or
   * before a query by anything else): a document read back is the very object put, as in the
   * in-memory store. Optional: a store without
   * it (memory, MongoDB) writes as it goes, which replays also make harmless.
   */
  batch?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Resolves once what is built from the documents in the background has caught up with every
   * write so far (SQLite: the text index, written by a thread). Searches are right meanwhile;
   * a rebuild waits for it before it reports done, so its time includes that work. Optional: a
   * store that indexes as it writes (memory, MongoDB) has nothing to wait for.
   */
  settled?(): Promise<void>;
  /**
   * Runs `work`, a rewrite of every read model (a rebuild), letting the store skip waiting for
   * the disk until its end, when everything is made durable at once. Should the machine go down
   * meanwhile, the next open finds out and starts the read models anew (SQLite). Optional: the
   * others write as they always do.
   */
  deferSync?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * A number that differs from the last one given whenever a document may have changed since: a
   * write of this process (inside a batch too) or a commit by another process. A caller may keep
   * what it built from documents (a list's whole answer) for as long as the mark stays. Optional:
   * a store that cannot tell cheaply (memory, MongoDB) has none, and its callers keep nothing.
   */
  changeMark?(): number;
  /**
   * Tells `watcher` of each commit of the writes made so far, and of each loss of the writes
   * not yet committed (SQLite: a commit or a write the storage refused, a full disk, which
   * rolls the whole open transaction back; the writes after it start a new one). A caller that
   * counted those writes as done (the projection runner's checkpoints) goes back to what the
   * last commit holds. Answers the unwatch. Optional: a store that writes as it goes (memory,
   * MongoDB) loses nothing it has answered.
   */
  watchCommits?(watcher: CommitWatcher): () => void;
  /** The last write refused for the store's own storage (a full disk), until one commits: /health reports it. Optional. */
  storageFailure?(): StorageFailure | null;
  close(): Promise<void>;
}

export interface CommitWatcher {
  /** Everything written so far is committed. */
  committed(): void;
  /** Everything written since the last commit is gone; `error` says why (a project error: StorageFullError for a full disk). */
  lost(error: Error): void;
}
