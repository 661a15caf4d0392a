import { Query } from 'mingo';
import { update as applyUpdate, type UpdateExpression } from 'mingo/updater';
import type {
  Collection,
  CollectionOptions,
  Document,
  DocumentStore,
  DropAllOptions,
  Filter,
  FindFieldsOptions,
  FindOptions,
  SortSpec,
  TextQuery,
  Update,
} from './port.js';
import { pickFields } from './picked-fields.js';
import { containsText, requireTextFields, textFields } from './text-search.js';

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function valueAt(doc: Document, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function sortDocuments<T extends Document>(docs: T[], sort: SortSpec): T[] {
  const keys = Object.entries(sort);
  return docs.sort((a, b) => {
    for (const [key, direction] of keys) {
      const order = compareValues(valueAt(a, key), valueAt(b, key));
      if (order !== 0) return order * direction;
    }
    return 0;
  });
}

/** A collection in a Map, filtered by mingo: the store the unit tests run against. */
class MemoryCollection<T extends Document> implements Collection<T> {
  private readonly docs = new Map<string | number, T>();

  /** The declared text fields (CollectionOptions.textSearch), searched in JavaScript: the reference semantics. */
  textFields: readonly string[] | null = null;

  constructor(private readonly name: string) {}

  /** The documents among `docs` a text search keeps (all of them without one). */
  private withText(docs: T[], query: TextQuery): T[] {
    if (query.text === undefined) return docs;
    const fields = requireTextFields(this.name, this.textFields);
    const text = query.text;
    return text === '' ? docs : docs.filter((doc) => containsText(doc, fields, text));
  }

  private matching(filter: Filter): T[] {
    const query = new Query(filter);
    return [...this.docs.values()].filter((doc) => query.test(doc));
  }

  async findOne(filter: Filter): Promise<T | null> {
    return this.matching(filter)[0] ?? null;
  }

  find<K extends keyof T & string>(filter: Filter, options: FindFieldsOptions<K>): Promise<Pick<T, K | '_id'>[]>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let docs = this.withText(this.matching(filter), options);
    if (options.sort) docs = sortDocuments(docs, options.sort);
    const skip = options.skip ?? 0;
    docs = docs.slice(skip, options.limit !== undefined ? skip + options.limit : undefined);
    return options.fields ? docs.map((doc) => pickFields(doc, options.fields ?? [])) : docs;
  }

  async count(filter: Filter = {}, options: TextQuery = {}): Promise<number> {
    return this.withText(this.matching(filter), options).length;
  }

  /** The store takes the document as it is; the caller must not change it after. */
  async put(doc: T): Promise<void> {
    this.docs.set(doc._id, doc);
  }

  async insert(doc: T): Promise<boolean> {
    if (this.docs.has(doc._id)) return false;
    this.docs.set(doc._id, doc);
    return true;
  }

  async putMany(docs: T[]): Promise<void> {
    for (const doc of docs) this.docs.set(doc._id, doc);
  }

  /** Updates a copy: documents handed out before stay as they were. */
  private updateDocs(targets: T[], update: Update): number {
    for (const target of targets) {
      const copy = structuredClone(target);
      for (const [operator, fields] of Object.entries(update)) {
        applyUpdate(copy, { [operator]: fields } as unknown as UpdateExpression);
      }
      this.docs.set(copy._id, copy);
    }
    return targets.length;
  }

  async updateOne(filter: Filter, update: Update): Promise<number> {
    return this.updateDocs(this.matching(filter).slice(0, 1), update);
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    return this.updateDocs(this.matching(filter), update);
  }

  async deleteOne(filter: Filter): Promise<number> {
    const [doc] = this.matching(filter);
    return doc && this.docs.delete(doc._id) ? 1 : 0;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const docs = this.matching(filter);
    for (const doc of docs) this.docs.delete(doc._id);
    return docs.length;
  }

  async drop(): Promise<void> {
    this.docs.clear();
  }
}

/** Read models in memory, for unit tests: the application's embedded store is SQLite (sqlite.ts). */
export class MemoryDocumentStore implements DocumentStore {
  readonly persistent = false;
  private readonly collections = new Map<string, MemoryCollection<Document>>();

  collection<T extends Document>(name: string, options: CollectionOptions = {}): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new MemoryCollection<Document>(name);
      this.collections.set(name, collection);
    }
    if (options.textSearch && !collection.textFields) collection.textFields = textFields(options.textSearch);
    return collection as unknown as Collection<T>;
  }

  async dropAll(options: DropAllOptions = {}): Promise<void> {
    const keep = new Set(options.keep);
    for (const [name, collection] of this.collections) if (!keep.has(name)) await collection.drop();
  }

  async close(): Promise<void> {}
}
