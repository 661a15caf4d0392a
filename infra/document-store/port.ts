/** A read-model document: `_id` is its key inside the collection. */
export interface Document {
  _id: string | number;
  [key: string]: unknown;
}

/** Mongo filter syntax (evaluated by mingo in the embedded store, by MongoDB in production). */
export type Filter = Record<string, unknown>;

/** Mongo update operators, e.g. {$set: {...}, $unset: {...}, $inc: {...}, $pull: {...}}. */
export type Update = Record<string, Record<string, unknown>>;

export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
}

/**
 * A read-model collection. Documents handed out are the store's own: callers must not
 * mutate them (the embedded store would see the change).
 */
export interface Collection<T extends Document> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter?: Filter): Promise<number>;
  /** Inserts or replaces the document with the same _id; the caller must not change it afterwards. */
  put(doc: T): Promise<void>;
  putMany(docs: T[]): Promise<void>;
  updateOne(filter: Filter, update: Update): Promise<number>;
  updateMany(filter: Filter, update: Update): Promise<number>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  drop(): Promise<void>;
}

export interface DocumentStore {
  collection<T extends Document>(name: string): Collection<T>;
  /** Drops every collection (read models are disposable: the log rebuilds them). */
  dropAll(): Promise<void>;
  /** True when read models survive a restart (MongoDB); false for the in-memory store. */
  readonly persistent: boolean;
  close(): Promise<void>;
}
