import type { Document, Update } from './port.js';

/** A document as a batch knows it: null when absent (read as missing, or deleted in the batch). */
export interface BatchEntry<T extends Document> {
  doc: T | null;
  /** Written or deleted in the batch and not yet in the table. */
  dirty: boolean;
  /** Deleted in the batch, then written again: the table's row goes first, as a new row takes its place. */
  recreated: boolean;
}

/**
 * One collection's documents by key while a batch of events is folded: those read (so a
 * projection that reads an item for each of its media parses it once) and those written or
 * deleted, which reach the table once, at the end of the batch or before a query by anything
 * but the key (so that query sees them). A replay writes an item each of its events change
 * once per batch instead of once per event.
 *
 * Rows keep the order one-by-one writes would give them (the table's insertion order, which
 * breaks ties of a sort and orders an unsorted find): the documents come out in the order each
 * last came into being, a document written where the batch knew none moving behind the others.
 */
export class BatchDocuments<T extends Document> {
  private readonly entries = new Map<T['_id'], BatchEntry<T>>();

  get(id: T['_id']): BatchEntry<T> | undefined {
    return this.entries.get(id);
  }

  /** What the table holds for the key (null: nothing), as read. */
  read(id: T['_id'], doc: T | null): void {
    this.entries.set(id, { doc, dirty: false, recreated: false });
  }

  write(doc: T): void {
    const known = this.entries.get(doc._id);
    if (known?.doc) {
      known.doc = doc;
      known.dirty = true;
      return;
    }
    // A new row: behind every row made before it.
    if (known) this.entries.delete(doc._id);
    this.entries.set(doc._id, { doc, dirty: true, recreated: known ? known.dirty || known.recreated : false });
  }

  delete(id: T['_id']): void {
    const known = this.entries.get(id);
    if (known) {
      known.doc = null;
      known.dirty = true;
    } else this.entries.set(id, { doc: null, dirty: true, recreated: false });
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * What the table must lose (deleted documents, and the old rows of recreated ones), then the
   * documents to write in order; the batch forgets every document.
   */
  drain(): { written: T[]; deleted: T['_id'][] } {
    const written: T[] = [];
    const deleted: T['_id'][] = [];
    for (const [id, entry] of this.entries) {
      if (!entry.dirty) continue;
      if (!entry.doc || entry.recreated) deleted.push(id);
      if (entry.doc) written.push(entry.doc);
    }
    this.entries.clear();
    return { written, deleted };
  }

  /** Forgets every document, written or not (the table was dropped). */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * What an update of a batch's document starts from, so a document handed out never changes:
 * a shallow copy whose top-level values the update goes into (an array or object) are copied
 * whole. Copying the whole document (as JSON) was a twentieth of a replay.
 */
export function updateCopy<T extends Document>(doc: T, update: Update): T {
  const copy: Record<string, unknown> = { ...doc };
  // A malformed update or operator is applyUpdate's to refuse.
  if (update === null || typeof update !== 'object') return copy as T;
  for (const fields of Object.values(update) as unknown[]) {
    if (fields === null || typeof fields !== 'object') continue;
    for (const path of Object.keys(fields)) {
      const top = path.split('.')[0];
      const value = copy[top];
      if (value !== null && typeof value === 'object' && value === (doc as Record<string, unknown>)[top])
        copy[top] = JSON.parse(JSON.stringify(value));
    }
  }
  return copy as T;
}
