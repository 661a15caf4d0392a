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
/**
 * Bytes read at once when reads walk along the file: a pass over many documents (a filter
 * matching post bodies) then costs a system call per window instead of one per string.
 */
const READ_WINDOW_BYTES = 64 * 1024;
/** A read this close to the one before continues a walk along the file. */
const NEARBY_BYTES = 2 * READ_WINDOW_BYTES;
/** Offsets remembered as read once; past this the record starts over. */
const READ_ONCE_OFFSETS = 4096;
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

/** ES2024's String.prototype.isWellFormed (Node 20 has it; the ES2023 typings do not). */
const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed;

/**
 * Long enough to be worth a getter, and UTF-8 can hold it: a lone surrogate half (which JSON
 * and JavaScript strings allow) would come back from the file as U+FFFD, so such a string stays.
 */
function spillable(value: unknown): value is string {
  return typeof value === 'string' && value.length >= SPILL_MIN_LENGTH && isWellFormed.call(value);
}

/** Builds a stored copy: `values` per key (undefined where spilled), `locations` offset and length per spilled key. */
type Builder = (values: unknown[], locations: number[], generation: Generation) => SpilledDocument;

/**
 * A shape (keys in order, and which of them are spilled) is a path in a tree of these, one step
 * per key; a complete shape's node holds its builder. Following a document's keys down the tree
 * costs a map look-up per key on the key names V8 already hashed, where a shape written out as
 * text cost a string built, flattened and hashed per document.
 */
interface ShapeNode {
  plain: Map<string, ShapeNode> | null;
  spilled: Map<string, ShapeNode> | null;
  build: Builder | null;
}

const newShapeNode = (): ShapeNode => ({ plain: null, spilled: null, build: null });

/** A copy being assembled: its keys in order, values (undefined where spilled), which keys are spilled and where. */
interface ShapeParts {
  keys: string[];
  values: unknown[];
  spilledKeys: boolean[];
  locations: number[];
  /** Where the keys so far lead in the shape tree. */
  node: ShapeNode;
}

/** Shape-tree nodes kept; past this the tree starts over (documents of one collection have a few shapes). */
const MAX_SHAPE_NODES = 20_000;

/** A key that copies, comparisons and serialisation do not see. */
function hide(target: object, key: symbol, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true });
}

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
  /** The file's bytes from windowStart, as many as windowLength: what a walk along the file read last. */
  private window: Buffer | null = null;
  private windowStart = 0;
  private windowLength = 0;
  /** Where the last read from the file began, to tell a walk from a jump. */
  private lastFileRead = -Infinity;
  private readonly recent = new Map<number, string>();
  private recentChars = 0;
  /** Offsets read once lately and not kept yet. */
  private readonly readOnce = new Set<number>();

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
      text = this.readFromFile(offset, length);
    }
    this.remember(offset, text);
    return text;
  }

  /**
   * A lone read (a page of posts) reads its own bytes; a read near the one before is taken as a
   * walk along the file, in either direction, and reads a window ahead in that direction.
   */
  private readFromFile(offset: number, length: number): string {
    const inWindow = offset - this.windowStart;
    if (this.window !== null && inWindow >= 0 && inWindow + length <= this.windowLength) {
      return this.window.toString('utf8', inWindow, inWindow + length);
    }
    const previous = this.lastFileRead;
    this.lastFileRead = offset;
    if (Math.abs(offset - previous) <= NEARBY_BYTES && length <= READ_WINDOW_BYTES / 2) {
      const backwards = offset < previous;
      const start = backwards ? Math.max(0, offset + length - READ_WINDOW_BYTES) : offset;
      const end = Math.min(this.flushed, start + READ_WINDOW_BYTES);
      this.window ??= Buffer.allocUnsafe(READ_WINDOW_BYTES);
      this.file.readAt(this.window.subarray(0, end - start), start);
      this.windowStart = start;
      this.windowLength = end - start;
      return this.window.toString('utf8', offset - start, offset - start + length);
    }
    if (length > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
    const into = this.scratch.subarray(0, length);
    this.file.readAt(into, offset);
    return into.toString('utf8');
  }

  /**
   * Keeps the string for the next read once it is read a second time, forgetting the oldest past
   * the budget. Only strings read again are kept: a pass over every document (the chatbot
   * indexing every post) would otherwise push each string through the cache, and strings that
   * live that long are moved to V8's old generation and die there, growing the heap by what
   * was read. Bytes at an offset never change (the file is only appended to), so a kept string
   * is never stale.
   */
  private remember(offset: number, text: string): void {
    if (text.length > RECENT_CHARS / 16) return;
    if (!this.readOnce.has(offset)) {
      if (this.readOnce.size >= READ_ONCE_OFFSETS) this.readOnce.clear();
      this.readOnce.add(offset);
      return;
    }
    this.readOnce.delete(offset);
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
  private shapes = newShapeNode();
  private shapeNodes = 0;
  private live = 0;
  private dead = 0;
  /** Files of every generation not yet closed: the current one, and older ones documents may still hold. */
  private readonly files = new Set<ScratchFile>();
  /** Closes a generation's file once no document refers to the generation any more. */
  private readonly closeWhenUnreachable = new FinalizationRegistry<ScratchFile>((file) => {
    file.close();
    this.files.delete(file);
  });

  constructor(private readonly directory?: string) {}

  /** Characters of the document's strings that `keep` would spill; 0 when none. */
  spillableChars(doc: Document): number {
    let chars = 0;
    for (const key in doc) {
      const value = doc[key];
      if (spillable(value)) chars += value.length;
    }
    return chars;
  }

  /** Whether the document's long strings are in the current file (it was spilled, not compacted away). */
  holds(doc: Document): boolean {
    return this.generation !== null && (doc as SpilledDocument)[GENERATION] === this.generation;
  }

  /**
   * The document to store: `doc` itself when no string is long enough, else a copy with the long
   * strings in the file. The copy keeps the key order, and documents of one shape share one
   * hidden class (every getter of a field is the same function).
   */
  keep<T extends Document>(doc: T): T {
    for (const key in doc) if (spillable(doc[key])) return this.assemble(doc, null);
    return doc;
  }

  /**
   * The document an update makes of a stored one that this file holds (see `holds`; the store
   * treats any other as new): `patch` holds the keys it changes. The strings of `base` it leaves
   * alone stay where they are in the file, neither read nor written.
   */
  patched<T extends Document>(base: T, patch: Record<string, unknown>): T {
    // Taking over locations from another file would point the copy at the wrong bytes.
    if (!this.holds(base)) throw new Error('patched() needs a document whose strings are in the current file.');
    return this.assemble(base, patch);
  }

  /**
   * A stored copy of `doc` with `patch` applied (keys new to `doc` go last). With a patch, `doc`
   * is a stored document of the current file, so its spilled keys' locations can be taken over.
   */
  private assemble<T extends Document>(doc: T, patch: Record<string, unknown> | null): T {
    const source = doc as Document as SpilledDocument;
    if (this.shapeNodes > MAX_SHAPE_NODES) {
      this.shapes = newShapeNode();
      this.shapeNodes = 0;
    }
    const parts: ShapeParts = { keys: [], values: [], spilledKeys: [], locations: [], node: this.shapes };
    for (const key in doc) {
      if (patch !== null) {
        if (Object.hasOwn(patch, key)) {
          this.addPart(parts, key, patch[key]);
          continue;
        }
        const field = this.fields.get(key);
        const offset = field ? source[field.offset] : undefined;
        if (field && typeof offset === 'number') {
          this.addSpilledPart(parts, key, offset, source[field.length] as number);
          continue;
        }
      }
      this.addPart(parts, key, doc[key]);
    }
    if (patch !== null) for (const key in patch) if (!Object.hasOwn(doc, key)) this.addPart(parts, key, patch[key]);
    // The same keys and values as `doc` with the patch, some behind getters.
    const build = (parts.node.build ??= this.builder(parts.keys, parts.spilledKeys));
    return build(parts.values, parts.locations, this.currentGeneration()) as unknown as T;
  }

  /** Adds a key and its value to the copy being assembled, spilling the value if it is long. */
  private addPart(parts: ShapeParts, key: string, value: unknown): void {
    if (spillable(value)) {
      const { offset, length } = this.currentGeneration().append(value);
      this.addSpilledPart(parts, key, offset, length);
      this.live += length;
    } else {
      parts.keys.push(key);
      parts.values.push(value);
      parts.spilledKeys.push(false);
      parts.node = this.step(parts.node, key, false);
    }
  }

  /** Adds a key whose string is in the file at `offset` (`length` bytes) to the copy being assembled. */
  private addSpilledPart(parts: ShapeParts, key: string, offset: number, length: number): void {
    parts.keys.push(key);
    parts.locations.push(offset, length);
    parts.values.push(undefined);
    parts.spilledKeys.push(true);
    parts.node = this.step(parts.node, key, true);
  }

  /** The shape-tree node one key (spilled or not) further down from `node`. */
  private step(node: ShapeNode, key: string, spilled: boolean): ShapeNode {
    let children = spilled ? node.spilled : node.plain;
    if (!children) {
      children = new Map();
      if (spilled) node.spilled = children;
      else node.plain = children;
    }
    let next = children.get(key);
    if (!next) {
      next = newShapeNode();
      children.set(key, next);
      this.shapeNodes += 1;
    }
    return next;
  }

  /**
   * The function that builds documents of one shape (keys in order, which of them spilled),
   * compiled once per shape. Written-out stores make V8 keep the copy a compact object; the same
   * copy built key by key with `copy[key] = value` becomes a hash table once it passes a dozen
   * keys, ten times the size, and one built with defineProperty for every key costs 9 µs.
   */
  private builder(keys: string[], spilledKeys: boolean[]): Builder {
    const spilled: SpilledField[] = [];
    // Hidden keys first, while the object is small (see above).
    const lines = ['const copy = {};', 'hide(copy, GENERATION, generation);'];
    const stores: string[] = [];
    keys.forEach((key, index) => {
      const name = JSON.stringify(key);
      if (spilledKeys[index]) {
        const n = spilled.length;
        spilled.push(this.field(key));
        lines.push(`hide(copy, spilled[${n}].offset, locations[${2 * n}]);`, `hide(copy, spilled[${n}].length, locations[${2 * n + 1}]);`);
        stores.push(`Object.defineProperty(copy, ${name}, spilled[${n}].descriptor);`);
      } else if (key === '__proto__') {
        // An assignment would set the prototype, not the key.
        stores.push(`Object.defineProperty(copy, ${name}, { value: values[${index}], writable: true, enumerable: true, configurable: true });`);
      } else stores.push(`copy[${name}] = values[${index}];`);
    });
    const body = [...lines, ...stores, 'return copy;'].join('\n');
    // Compiled from key names, which JSON.stringify quotes: no key can become code.
    return new Function('hide', 'GENERATION', 'spilled', `return function build(values, locations, generation) {\n${body}\n};`)(hide, GENERATION, spilled) as Builder;
  }

  /**
   * The document has left the store (replaced or deleted): its strings' bytes are dead, but for
   * those its successor (the document that replaced it) still uses.
   */
  release(doc: Document, successor?: Document): void {
    const spilled = doc as SpilledDocument;
    if (spilled[GENERATION] === undefined) return;
    // Bytes in an older generation were counted dead when compaction left them behind.
    if (spilled[GENERATION] !== this.generation) return;
    const next = successor as SpilledDocument | undefined;
    const shared = next !== undefined && next[GENERATION] === this.generation;
    for (const field of this.fields.values()) {
      const length = spilled[field.length];
      if (typeof length !== 'number') continue;
      // Offsets are never reused within a file, so the same offset is the same string.
      if (shared && next[field.offset] === spilled[field.offset]) continue;
      this.live -= length;
      this.dead += length;
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
    const fresh = this.newGeneration();
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
    this.live = live;
    this.dead = 0;
  }

  /**
   * Every document has left the store at once (all collections dropped): the next string
   * starts a fresh file, and the old one closes once no document a caller holds refers to it.
   */
  abandon(): void {
    this.generation = null;
    this.live = 0;
    this.dead = 0;
  }

  /** Closes every file now (documents still held read from them no more). */
  close(): void {
    for (const file of this.files) file.close();
    this.files.clear();
    this.generation = null;
  }

  private currentGeneration(): Generation {
    if (!this.generation) {
      this.generation = this.newGeneration();
    }
    return this.generation;
  }

  private newGeneration(): Generation {
    const generation = new Generation(ScratchFile.create('strings', this.directory));
    this.files.add(generation.file);
    this.closeWhenUnreachable.register(generation, generation.file);
    return generation;
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
