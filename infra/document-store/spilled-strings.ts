import { ScratchFile } from '../scratch-file.js';
import type { Document } from './port.js';

/** Strings at least this long leave the heap; a shorter one costs less than its accessor and location. */
export const SPILL_MIN_LENGTH = 256;
/** Appends gather here and reach the file in one write: a rebuild spills a string per post. */
const PENDING_BYTES = 1 << 20;
/**
 * Strings read lately, kept up to this many characters in all: a blog's front page is read over
 * and over, and a read from the file costs a system call and a decode.
 */
const RECENT_CHARS = 1 << 20;
/** Compaction waits until the dead bytes are this many, and more than the live ones. */
const COMPACT_AFTER_BYTES = 32 * 1024 * 1024;

/** The file a document's spilled strings are in: every spilled document holds its own generation. */
const GENERATION = Symbol('spilled strings file');

/** Where one field's string is: two non-enumerable keys on the document, so copies and comparisons do not see them. */
interface SpilledField {
  readonly offset: symbol;
  readonly length: symbol;
  readonly descriptor: PropertyDescriptor;
}

type SpilledDocument = Document & { [key: symbol]: unknown };

/**
 * One file of spilled strings. Compaction starts a new one; the old one stays open for
 * documents a caller still holds after they left the store (a page being answered while a post
 * is replaced), and is closed once no document refers to it.
 */
class Generation {
  private readonly pending = Buffer.allocUnsafe(PENDING_BYTES);
  private pendingUsed = 0;
  /** Bytes in the file; pending bytes follow them. */
  private flushed = 0;
  private scratch = Buffer.allocUnsafe(4096);
  private readonly recent = new Map<number, string>();
  private recentChars = 0;

  constructor(readonly file: ScratchFile) {}

  get end(): number {
    return this.flushed + this.pendingUsed;
  }

  append(text: string): { offset: number; length: number } {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (text.length * 3 > PENDING_BYTES - this.pendingUsed) this.flush();
    if (text.length * 3 > PENDING_BYTES) {
      const bytes = Buffer.from(text, 'utf8');
      const offset = this.flushed;
      this.file.writeAt(bytes, offset);
      this.flushed += bytes.length;
      return { offset, length: bytes.length };
    }
    const offset = this.end;
    const length = this.pending.write(text, this.pendingUsed, 'utf8');
    this.pendingUsed += length;
    return { offset, length };
  }

  read(offset: number, length: number): string {
    const recent = this.recent.get(offset);
    if (recent !== undefined) return recent;
    let text: string;
    if (offset >= this.flushed) {
      const start = offset - this.flushed;
      text = this.pending.toString('utf8', start, start + length);
    } else {
      if (length > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
      const into = this.scratch.subarray(0, length);
      this.file.readAt(into, offset);
      text = into.toString('utf8');
    }
    this.remember(offset, text);
    return text;
  }

  /**
   * Keeps the string for the next read, forgetting the oldest past the budget. Bytes at an
   * offset never change (the file is only appended to), so a kept string is never stale.
   */
  private remember(offset: number, text: string): void {
    if (text.length > RECENT_CHARS / 16) return;
    this.recent.set(offset, text);
    this.recentChars += text.length;
    for (const [oldest, kept] of this.recent) {
      if (this.recentChars <= RECENT_CHARS) break;
      this.recent.delete(oldest);
      this.recentChars -= kept.length;
    }
  }

  private flush(): void {
    if (this.pendingUsed === 0) return;
    this.file.writeAt(this.pending.subarray(0, this.pendingUsed), this.flushed);
    this.flushed += this.pendingUsed;
    this.pendingUsed = 0;
  }
}

/** Closes a generation's file once no document refers to the generation any more. */
const closeWhenUnreachable = new FinalizationRegistry<ScratchFile>((file) => file.close());

/**
 * Long top-level strings of the embedded store's documents (post bodies, descriptions), kept in
 * a scratch file rather than the heap, the way MongoDB keeps documents on disk: 100,000 posts
 * hold 70 MB of bodies that only a page being answered needs. The stored document gets an
 * enumerable getter in the string's place, so reading it, serialising it, copying it or
 * matching a filter against it all see the string. The file is never needed after the
 * process: read models are rebuilt from the log at start.
 */
export class SpilledStrings {
  private generation: Generation | null = null;
  private readonly fields = new Map<string, SpilledField>();
  private live = 0;
  private dead = 0;

  constructor(private readonly directory?: string) {}

  /**
   * The document to store: `doc` itself when no string is long enough, else a copy with the long
   * strings in the file. The copy keeps the key order, and documents of one shape share one
   * hidden class (every getter of a field is the same function).
   */
  keep<T extends Document>(doc: T): T {
    let long = false;
    for (const key in doc) {
      const value = doc[key];
      if (typeof value === 'string' && value.length >= SPILL_MIN_LENGTH) {
        long = true;
        break;
      }
    }
    if (!long) return doc;
    const generation = this.currentGeneration();
    const copy = {} as SpilledDocument;
    // Every key through defineProperty: V8 turns an object that gets more than a dozen keys by
    // computed assignment (`copy[key] = value`) into a hash table, ten times the size.
    for (const key in doc) {
      const value = doc[key];
      if (typeof value === 'string' && value.length >= SPILL_MIN_LENGTH) {
        const field = this.field(key);
        const { offset, length } = generation.append(value);
        Object.defineProperty(copy, key, field.descriptor);
        Object.defineProperty(copy, field.offset, { value: offset, writable: true });
        Object.defineProperty(copy, field.length, { value: length, writable: true });
        this.live += length;
      } else Object.defineProperty(copy, key, { value, writable: true, enumerable: true, configurable: true });
    }
    Object.defineProperty(copy, GENERATION, { value: generation, writable: true });
    // The same keys and values as `doc`, some behind getters.
    return copy as unknown as T;
  }

  /** The document has left the store (replaced or deleted): its strings' bytes are dead. */
  release(doc: Document): void {
    const spilled = doc as SpilledDocument;
    if (spilled[GENERATION] === undefined) return;
    // Bytes in an older generation were counted dead when compaction left them behind.
    if (spilled[GENERATION] !== this.generation) return;
    for (const field of this.fields.values()) {
      const length = spilled[field.length];
      if (typeof length === 'number') {
        this.live -= length;
        this.dead += length;
      }
    }
  }

  get needsCompaction(): boolean {
    return this.dead >= COMPACT_AFTER_BYTES && this.dead > this.live;
  }

  /**
   * Copies the strings of the documents still stored (`stored`: every one of them) into a fresh
   * file and points the documents at it. Documents already gone from the store keep the old
   * file until nothing refers to them.
   */
  compact(stored: Iterable<Document>): void {
    const old = this.generation;
    if (!old) return;
    const fresh = new Generation(ScratchFile.create('strings', this.directory));
    let live = 0;
    for (const doc of stored) {
      const spilled = doc as SpilledDocument;
      if (spilled[GENERATION] !== old) continue;
      for (const field of this.fields.values()) {
        const offset = spilled[field.offset];
        const length = spilled[field.length];
        if (typeof offset !== 'number' || typeof length !== 'number') continue;
        const moved = fresh.append(old.read(offset, length));
        spilled[field.offset] = moved.offset;
        spilled[field.length] = moved.length;
        live += moved.length;
      }
      spilled[GENERATION] = fresh;
    }
    this.generation = fresh;
    closeWhenUnreachable.register(fresh, fresh.file);
    this.live = live;
    this.dead = 0;
  }

  /** Closes the current file now (documents still held read from it no more). */
  close(): void {
    this.generation?.file.close();
    this.generation = null;
  }

  private currentGeneration(): Generation {
    if (!this.generation) {
      this.generation = new Generation(ScratchFile.create('strings', this.directory));
      closeWhenUnreachable.register(this.generation, this.generation.file);
    }
    return this.generation;
  }

  private field(key: string): SpilledField {
    let field = this.fields.get(key);
    if (!field) {
      const offset = Symbol(`${key} offset`);
      const length = Symbol(`${key} length`);
      const descriptor: PropertyDescriptor = {
        enumerable: true,
        configurable: true,
        get(this: SpilledDocument): string {
          return (this[GENERATION] as Generation).read(this[offset] as number, this[length] as number);
        },
      };
      field = { offset, length, descriptor };
      this.fields.set(key, field);
    }
    return field;
  }
}
