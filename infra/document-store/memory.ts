import { Query } from 'mingo';
import { update as applyUpdate, type UpdateExpression } from 'mingo/updater';
import type { Collection, CollectionOptions, Document, DocumentStore, Filter, FindOptions, SortSpec, TextQuery, Update } from './port.js';
import { SpilledStrings } from './spilled-strings.js';
import { containsText, requireTextFields, textFields } from './text-search.js';
import { YoungDocuments } from './young-documents.js';

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function valueAt(doc: Document, path: string): unknown {
  if (!path.includes('.')) return doc[path];
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

/** A filter that is only `{_id: value}` is answered by the map without a scan. */
function idLookup(filter: Filter): string | number | undefined {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return undefined;
  const id = filter._id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** A cache key for a filter and sort; RegExps (from $regex searches) keep their source and flags. */
function cacheKey(filter: Filter, sort?: SortSpec): string {
  return JSON.stringify([filter, sort ?? null], (_key, value: unknown) =>
    value instanceof RegExp ? `/${value.source}/${value.flags}` : value,
  );
}

const RESULT_CACHE_LIMIT = 200;

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * The updates projections make most ($set, $inc, $addToSet and $pull of scalars on top-level
 * fields) as the keys they change and their new values: a replay makes one per media event, and
 * a deep clone plus mingo's updater cost most of its time. The new document shares the stored
 * one's untouched parts (stored documents are never changed in place), spilled strings included.
 * Anything else returns null and goes through mingo.
 */
function simplePatch(doc: Document, update: Update): Record<string, unknown> | null {
  const patch: Record<string, unknown> = {};
  for (const [operator, fields] of Object.entries(update)) {
    if (fields === null || typeof fields !== 'object') return null;
    for (const [key, value] of Object.entries(fields as Record<string, unknown>)) {
      if (key.includes('.') || key.startsWith('$') || key === '_id' || key === '__proto__' || !isScalar(value)) return null;
      const current = Object.hasOwn(patch, key) ? patch[key] : doc[key];
      switch (operator) {
        case '$set':
          patch[key] = value;
          break;
        case '$inc':
          if (typeof value !== 'number' || (current !== undefined && typeof current !== 'number')) return null;
          patch[key] = ((current as number | undefined) ?? 0) + value;
          break;
        case '$addToSet':
          if (current === undefined) patch[key] = [value];
          else if (!Array.isArray(current) || !current.every(isScalar)) return null;
          else if (!current.includes(value)) patch[key] = [...current, value];
          break;
        case '$pull':
          if (current === undefined) break;
          if (!Array.isArray(current) || !current.every(isScalar)) return null;
          if (current.includes(value)) patch[key] = current.filter((element) => element !== value);
          break;
        default:
          return null;
      }
    }
  }
  return patch;
}

/** What a collection shares with its store: the file of long strings, and a call after documents leave. */
interface CollectionHost {
  readonly strings: SpilledStrings;
  /** A document with long strings was stored as it is; the store spills it once it has aged. */
  stored(collection: MemoryCollection<Document>, doc: Document, chars: number): void;
  released(): void;
}

class MemoryCollection<T extends Document> implements Collection<T> {
  readonly docs = new Map<string | number, T>();
  private readonly queries = new Map<string, Query>();
  /**
   * Matching, sorted documents per (filter, sort), dropped on any write: repeated reads between
   * writes (the common case for public lists) cost a slice instead of a scan and a sort.
   */
  private readonly results = new Map<string, T[]>();

  /** The declared text fields (CollectionOptions.textSearch), searched in JavaScript: the reference semantics. */
  textFields: readonly string[] | null = null;

  constructor(
    private readonly host: CollectionHost,
    private readonly name: string,
  ) {}

  /** The documents among `docs` a text search keeps (all of them without one). */
  private withText(docs: T[], query: TextQuery): T[] {
    if (query.text === undefined) return docs;
    const fields = requireTextFields(this.name, this.textFields);
    const text = query.text;
    return text === '' ? docs : docs.filter((doc) => containsText(doc, fields, text));
  }

  private changed(): void {
    if (this.results.size > 0) this.results.clear();
  }

  /**
   * Stores the document as it is, releasing the one it replaces; one with long strings is
   * spilled later, if it is still here (see MemoryDocumentStore).
   */
  private store(doc: T): void {
    this.storeKept(doc);
    const chars = this.host.strings.spillableChars(doc);
    if (chars > 0) this.host.stored(this as unknown as MemoryCollection<Document>, doc, chars);
  }

  /** Spills the document's long strings if it is still the one stored under its id. */
  spillIfCurrent(doc: T): void {
    if (this.docs.get(doc._id) !== doc) return;
    this.docs.set(doc._id, this.host.strings.keep(doc));
    // Cached results would otherwise hold the copy with the strings.
    this.changed();
  }

  private storeKept(kept: T): void {
    const previous = this.docs.get(kept._id);
    this.docs.set(kept._id, kept);
    if (previous) this.host.strings.release(previous, kept);
  }

  private remove(doc: T): void {
    this.docs.delete(doc._id);
    this.host.strings.release(doc);
  }

  private query(filter: Filter): Query {
    const key = JSON.stringify(filter);
    let query = this.queries.get(key);
    if (!query) {
      query = new Query(filter);
      if (this.queries.size > 500) this.queries.clear();
      this.queries.set(key, query);
    }
    return query;
  }

  private matching(filter: Filter): T[] {
    const id = idLookup(filter);
    if (id !== undefined) {
      const doc = this.docs.get(id);
      return doc ? [doc] : [];
    }
    if (Object.keys(filter).length === 0) return [...this.docs.values()];
    const query = this.query(filter);
    const out: T[] = [];
    for (const doc of this.docs.values()) if (query.test(doc)) out.push(doc);
    return out;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const id = idLookup(filter);
    if (id !== undefined) return this.docs.get(id) ?? null;
    const query = this.query(filter);
    for (const doc of this.docs.values()) if (query.test(doc)) return doc;
    return null;
  }

  private sortedMatching(filter: Filter, sort?: SortSpec): T[] {
    const key = cacheKey(filter, sort);
    let docs = this.results.get(key);
    if (!docs) {
      docs = this.matching(filter);
      if (sort) docs = sortDocuments(docs, sort);
      if (this.results.size >= RESULT_CACHE_LIMIT) this.results.clear();
      this.results.set(key, docs);
    }
    return docs;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const docs = this.withText(this.sortedMatching(filter, options.sort), options);
    const skip = options.skip ?? 0;
    const end = options.limit !== undefined ? skip + options.limit : undefined;
    return docs.slice(skip, end);
  }

  async count(filter: Filter = {}, options: TextQuery = {}): Promise<number> {
    if (options.text !== undefined) return this.withText(this.sortedMatching(filter), options).length;
    if (Object.keys(filter).length === 0) return this.docs.size;
    return this.sortedMatching(filter).length;
  }

  /** The store takes the document as it is (no copy: replay speed); the caller must not change it after. */
  async put(doc: T): Promise<void> {
    this.store(doc);
    this.changed();
    this.host.released();
  }

  async putMany(docs: T[]): Promise<void> {
    for (const doc of docs) this.store(doc);
    this.changed();
    this.host.released();
  }

  private updateDocs(targets: T[], update: Update): number {
    for (const target of targets) {
      const patch = simplePatch(target, update);
      if (patch && this.host.strings.holds(target)) {
        this.storeKept(this.host.strings.patched(target, patch));
        continue;
      }
      if (patch) {
        this.store(Object.assign({}, target, patch));
        continue;
      }
      const copy = structuredClone(target);
      for (const [operator, fields] of Object.entries(update)) {
        applyUpdate(copy, { [operator]: fields } as unknown as UpdateExpression);
      }
      this.store(copy);
    }
    if (targets.length > 0) this.changed();
    this.host.released();
    return targets.length;
  }

  async updateOne(filter: Filter, update: Update): Promise<number> {
    const doc = await this.findOne(filter);
    return doc ? this.updateDocs([doc], update) : 0;
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    return this.updateDocs(this.matching(filter), update);
  }

  async deleteOne(filter: Filter): Promise<number> {
    const doc = await this.findOne(filter);
    if (!doc) return 0;
    this.remove(doc);
    this.changed();
    this.host.released();
    return 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const docs = this.matching(filter);
    for (const doc of docs) this.remove(doc);
    if (docs.length > 0) this.changed();
    this.host.released();
    return docs.length;
  }

  async drop(): Promise<void> {
    for (const doc of this.docs.values()) this.host.strings.release(doc);
    this.forgetAll();
    this.host.released();
  }

  /** Empties the collection without accounting for its strings (the store abandons them all). */
  forgetAll(): void {
    this.docs.clear();
    this.changed();
  }
}

export interface MemoryDocumentStoreOptions {
  /** Where the file of long strings goes (see SpilledStrings); a temporary directory of its own when absent. */
  directory?: string;
  /** Characters of long strings that young documents may hold before the oldest are spilled (see YoungDocuments); 0 spills at once. */
  youngChars?: number;
  /** Quiet time after which every young document is spilled. */
  youngIdleMs?: number;
}

const YOUNG_CHARS = 256 * 1024;
const YOUNG_IDLE_MS = 1000;

/**
 * The embedded read-model store: collections in memory, rebuilt from the log at start. Long
 * strings of documents that have aged wait in a scratch file until read (see SpilledStrings
 * and YoungDocuments).
 */
export class MemoryDocumentStore implements DocumentStore {
  readonly persistent = false;
  private readonly collections = new Map<string, MemoryCollection<Document>>();
  private readonly host: CollectionHost;
  private readonly young: YoungDocuments<MemoryCollection<Document>>;

  constructor(options: MemoryDocumentStoreOptions = {}) {
    const strings = new SpilledStrings(options.directory);
    this.young = new YoungDocuments(options.youngChars ?? YOUNG_CHARS, options.youngIdleMs ?? YOUNG_IDLE_MS, (collection, doc) =>
      collection.spillIfCurrent(doc),
    );
    this.host = {
      strings,
      stored: (collection, doc, chars) => this.young.add(collection, doc, chars),
      released: () => {
        if (strings.needsCompaction) strings.compact(this.storedDocuments());
      },
    };
  }

  collection<T extends Document>(name: string, options: CollectionOptions = {}): Collection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new MemoryCollection<Document>(this.host, name);
      this.collections.set(name, collection);
    }
    if (options.textSearch && !collection.textFields) collection.textFields = textFields(options.textSearch);
    return collection as unknown as Collection<T>;
  }

  async dropAll(): Promise<void> {
    for (const collection of this.collections.values()) collection.forgetAll();
    // None of the young documents is stored any more: holding them would only keep them alive.
    this.young.clear();
    this.host.strings.abandon();
  }

  async close(): Promise<void> {
    this.young.clear();
    this.host.strings.close();
  }

  private *storedDocuments(): Iterable<Document> {
    for (const collection of this.collections.values()) yield* collection.docs.values();
  }
}
