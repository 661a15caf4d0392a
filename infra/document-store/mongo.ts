import {
  MongoClient,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  type AnyBulkWriteOperation,
  type Collection as MongoCollection,
  type Db,
  type Filter as MongoFilter,
  type UpdateFilter,
} from 'mongodb';
import { DependencyUnavailableError } from '../errors.js';
import { MongoIndexes } from './mongo-indexes.js';
import { databaseFromUrl } from './mongo-url.js';
import { checkedFields } from './picked-fields.js';
import type {
  Collection,
  CollectionOptions,
  Document,
  DocumentStore,
  DropAllOptions,
  Filter,
  FindFieldsOptions,
  FindOptions,
  TextQuery,
  Update,
} from './port.js';
import { escapeRegex, requireTextFields, textFields } from './text-search.js';

const DEPENDENCY = 'MongoDB';

/** The server answers "namespace not found" when dropping a collection that does not exist. */
const NAMESPACE_NOT_FOUND = 26;
/** MongoDB's error code for a second document with a unique key (an _id) already taken. */
const DUPLICATE_KEY = 11000;

/**
 * A drop refused because the collection does not exist, which the port treats as done. MongoDB
 * before 7.0 answers code 26 with "ns not found" (7.0 and later answer ok); the mongo-java-server
 * stand-in sends the same message without a code, so the message counts too.
 */
function collectionWasAbsent(error: unknown): boolean {
  return error instanceof MongoServerError && (error.code === NAMESPACE_NOT_FOUND || error.errmsg === 'ns not found');
}

/**
 * The projection of a find with `fields`. `_id` is named even though MongoDB adds it anyway:
 * an empty projection means the whole document, so `fields: []` would otherwise read everything.
 */
function projectionOf(fields: readonly string[]): Record<string, 1> {
  return Object.fromEntries([['_id', 1], ...checkedFields(fields).map((field) => [field, 1])]);
}

export interface MongoDocumentStoreOptions {
  /** Overrides the database named in the URL path (tests use a fresh one). */
  database?: string;
  serverSelectionTimeoutMS?: number;
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof MongoServerSelectionError || error instanceof MongoNetworkError) {
      throw new DependencyUnavailableError(DEPENDENCY);
    }
    throw error;
  }
}

// The port speaks plain Mongo syntax as records; the driver's generic filter and update types
// describe the same shapes, so these casts (and the `as unknown as T` on results, which are the
// documents put in) only change the static view.
const asFilter = (filter: Filter) => filter as MongoFilter<Document>;
const asUpdate = (update: Update) => update as UpdateFilter<Document>;

class MongoBackedCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly collection: MongoCollection<Document>,
    private readonly textFields: readonly string[] | null,
    private readonly indexes: MongoIndexes,
  ) {}

  /** `work` once the collection's declared indexes exist, with driver errors translated. */
  private run<R>(work: () => Promise<R>): Promise<R> {
    return guard(async () => {
      await this.indexes.ready(this.collection.collectionName);
      return work();
    });
  }

  /**
   * The filter with a text search added: a case-insensitive $regex of the escaped text on each
   * text field. MongoDB folds case by Unicode simple case folding, which differs from
   * JavaScript's toLowerCase for a few characters (a dotted capital I, a final sigma); no
   * index serves an unanchored $regex, so over a large blog an Atlas Search index (or a
   * lowercased copy of the fields) would be the next step.
   */
  private withText(filter: Filter, query: TextQuery): Filter {
    if (query.text === undefined) return filter;
    const fields = requireTextFields(this.collection.collectionName, this.textFields);
    if (query.text === '') return filter;
    const pattern = { $regex: escapeRegex(query.text), $options: 'i' };
    return { $and: [filter, { $or: fields.map((field) => ({ [field]: pattern })) }] };
  }

  findOne(filter: Filter): Promise<T | null> {
    return this.run(async () => (await this.collection.findOne(asFilter(filter))) as unknown as T | null);
  }

  find<K extends keyof T & string>(filter: Filter, options: FindFieldsOptions<K>): Promise<Pick<T, K | '_id'>[]>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    // Mongo reads limit 0 as "no limit"; the port means no documents.
    if (options.limit === 0) return Promise.resolve([]);
    return this.run(async () => {
      const cursor = this.collection.find(asFilter(this.withText(filter, options)), {
        ...(options.sort ? { sort: options.sort } : {}),
        ...(options.skip ? { skip: options.skip } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        ...(options.fields ? { projection: projectionOf(options.fields) } : {}),
      });
      return (await cursor.toArray()) as unknown as T[];
    });
  }

  count(filter: Filter = {}, options: TextQuery = {}): Promise<number> {
    return this.run(() => this.collection.countDocuments(asFilter(this.withText(filter, options))));
  }

  put(doc: T): Promise<void> {
    return this.run(async () => {
      await this.collection.replaceOne({ _id: doc._id }, doc, { upsert: true });
    });
  }

  insert(doc: T): Promise<boolean> {
    return this.run(async () => {
      try {
        await this.collection.insertOne(doc);
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
        throw error;
      }
    });
  }

  putMany(docs: T[]): Promise<void> {
    if (docs.length === 0) return Promise.resolve();
    const operations: AnyBulkWriteOperation<Document>[] = docs.map((doc) => ({
      replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true },
    }));
    return this.run(async () => {
      await this.collection.bulkWrite(operations, { ordered: true });
    });
  }

  /** Counts matched documents, as the embedded store does, whether or not they changed. */
  updateOne(filter: Filter, update: Update): Promise<number> {
    return this.run(async () => (await this.collection.updateOne(asFilter(filter), asUpdate(update))).matchedCount);
  }

  updateMany(filter: Filter, update: Update): Promise<number> {
    return this.run(async () => (await this.collection.updateMany(asFilter(filter), asUpdate(update))).matchedCount);
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.run(async () => (await this.collection.deleteOne(asFilter(filter))).deletedCount);
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.run(async () => (await this.collection.deleteMany(asFilter(filter))).deletedCount);
  }

  drop(): Promise<void> {
    return guard(async () => {
      try {
        await this.collection.drop();
      } catch (error) {
        if (!collectionWasAbsent(error)) throw error;
      }
      this.indexes.dropped(this.collection.collectionName);
    });
  }
}

/**
 * Read models in MongoDB: they survive restarts, so projections resume from their checkpoints.
 * It has no batch(): a multi-document transaction needs a replica set, which a plain server is
 * not. Writes land as they come and the runner saves a checkpoint after the documents it covers,
 * so a crash makes the next start apply at most the last batch again, which projections make harmless.
 */
export class MongoDocumentStore implements DocumentStore {
  readonly persistent = true;

  private readonly indexes: MongoIndexes;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.indexes = new MongoIndexes(db);
  }

  /** Connects before returning, so an unreachable server fails start-up with DependencyUnavailableError. */
  static async connect(url: string, options: MongoDocumentStoreOptions = {}): Promise<MongoDocumentStore> {
    const client = new MongoClient(url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
      // A field holding undefined is absent, as in the JSON the other stores keep; the driver
      // would otherwise store null, which $exists sees and reads hand back.
      ignoreUndefined: true,
    });
    try {
      await guard(() => client.connect());
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return new MongoDocumentStore(client, client.db(options.database ?? databaseFromUrl(url)));
  }

  collection<T extends Document>(name: string, options: CollectionOptions = {}): Collection<T> {
    this.indexes.declare(name, options);
    return new MongoBackedCollection<T>(
      this.db.collection<Document>(name),
      options.textSearch ? textFields(options.textSearch) : null,
      this.indexes,
    );
  }

  async dropAll(options: DropAllOptions = {}): Promise<void> {
    const keep = new Set(options.keep);
    const collections = await guard(() => this.db.listCollections({}, { nameOnly: true }).toArray());
    for (const { name } of collections) {
      if (name.startsWith('system.') || keep.has(name)) continue;
      await this.collection(name).drop();
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
