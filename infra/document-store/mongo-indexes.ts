import type { Db } from 'mongodb';
import type { CollectionOptions } from './port.js';

type IndexKey = Record<string, 1>;

/**
 * The MongoDB indexes a collection's declarations ask for: one per `indexes` entry (compound,
 * in its order) and one per `elementIndexes` field (MongoDB makes it multikey, one entry per
 * element). `_id` is left out: every collection has its unique index already.
 */
export function declaredIndexKeys(options: CollectionOptions): IndexKey[] {
  const specs = [...(options.indexes ?? []), ...(options.elementIndexes ?? [])];
  return specs
    .map((spec) => Object.fromEntries((typeof spec === 'string' ? [spec] : spec).map((field) => [field, 1 as const])))
    .filter((key) => !(Object.keys(key).length === 1 && '_id' in key));
}

/**
 * Creates each collection's declared indexes before its first use, and again after a drop (which
 * takes them with it), so look-ups and sorts by declared fields do not scan every document. A
 * creation that failed (the server away) is tried again by the next use.
 */
export class MongoIndexes {
  /** Per collection, its declared keys by their JSON, from every collection() call. */
  private readonly declared = new Map<string, Map<string, IndexKey>>();
  private readonly made = new Map<string, Promise<void>>();

  constructor(private readonly db: Db) {}

  declare(collection: string, options: CollectionOptions): void {
    const keys = declaredIndexKeys(options);
    if (keys.length === 0) return;
    const known = this.declared.get(collection) ?? new Map<string, IndexKey>();
    this.declared.set(collection, known);
    let added = false;
    for (const key of keys) {
      const id = JSON.stringify(key);
      if (!known.has(id)) {
        known.set(id, key);
        added = true;
      }
    }
    if (added) this.made.delete(collection);
  }

  /** Resolves once the collection's declared indexes exist (at once when it declares none). */
  ready(collection: string): Promise<void> {
    const keys = this.declared.get(collection);
    if (!keys) return Promise.resolve();
    let made = this.made.get(collection);
    if (!made) {
      const making = this.db
        .collection(collection)
        .createIndexes([...keys.values()].map((key) => ({ key })))
        .then(() => undefined);
      making.catch(() => {
        if (this.made.get(collection) === making) this.made.delete(collection);
      });
      this.made.set(collection, making);
      made = making;
    }
    return made;
  }

  /** The collection was dropped with its indexes: its next use makes them again. */
  dropped(collection: string): void {
    this.made.delete(collection);
  }
}
