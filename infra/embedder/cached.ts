import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isStorageFailure } from '../storage-errors.js';
import type { Embedder, EmbedPurpose } from './port.js';

interface WarnLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * Wraps an embedder with a cache keyed by the hash of model, purpose and text, kept in a
 * SQLite file in DATA_DIR: replays and restarts find their vectors there instead of paying
 * the provider again. The model's name is in the key: vectors of another model are never served.
 * The cache only saves work: a write it cannot make (a full disk) is skipped, the vectors are
 * answered all the same, and the skipping is logged once per run of refusals.
 */
export class CachedEmbedder implements Embedder {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], { vector: Buffer }>;
  private readonly insert: Database.Statement<[string, Buffer]>;
  private closed = false;
  private embedded = 0;
  private skipped = 0;
  /** The storage refuses the cache's writes (since the first refusal of this run). */
  private refusing = false;
  /** The inner embedder's stand-in vectors, when it has some (see the port); not cached, they are cheap. */
  readonly provisional?: (texts: string[]) => Float32Array[];
  /** The inner embedder's query vectors for another model's chunks, when it has some (see the port); not cached either. */
  readonly legacyQuery?: (model: string, texts: string[]) => Float32Array[] | null;

  constructor(
    private readonly inner: Embedder,
    file: string,
    private readonly logger: WarnLogger | null = null,
  ) {
    const provisional = inner.provisional?.bind(inner);
    if (provisional) this.provisional = provisional;
    const legacyQuery = inner.legacyQuery?.bind(inner);
    if (legacyQuery) this.legacyQuery = legacyQuery;
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)');
    this.select = this.db.prepare('SELECT vector FROM embeddings WHERE key = ?');
    this.insert = this.db.prepare('INSERT OR REPLACE INTO embeddings (key, vector) VALUES (?, ?)');
  }

  get model(): string {
    return this.inner.model;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  private key(text: string, purpose: EmbedPurpose): string {
    return createHash('sha256').update(`${this.inner.model}\u0000${purpose}\u0000${text}`).digest('hex');
  }

  /** The vectors of every text when all are in the cache, else null: nothing is embedded. */
  cachedOnly(texts: string[], purpose: EmbedPurpose): Float32Array[] | null {
    if (this.closed) return null;
    const vectors = this.lookup(texts.map((text) => this.key(text, purpose)));
    return vectors.every((vector) => vector !== null) ? (vectors as Float32Array[]) : null;
  }

  /** Vectors embedded since this cache was opened (tests check a second index of the same content embeds nothing). */
  get embeddedCount(): number {
    return this.embedded;
  }

  private lookup(keys: string[]): (Float32Array | null)[] {
    return keys.map((key) => {
      const row = this.select.get(key);
      return row
        ? new Float32Array(
            row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength),
          )
        : null;
    });
  }

  async embed(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    // A job may still be running while the runtime shuts down: it then goes without the cache.
    if (this.closed) return this.inner.embed(texts, purpose);
    const keys = texts.map((text) => this.key(text, purpose));
    const vectors = this.lookup(keys);
    const missing = vectors.flatMap((v, i) => (v === null ? [i] : []));
    if (missing.length > 0) {
      const fresh = await this.inner.embed(
        missing.map((i) => texts[i]),
        purpose,
      );
      this.embedded += fresh.length;
      const store = this.closed
        ? () => {}
        : this.db.transaction(() => {
            missing.forEach((index, n) =>
              this.insert.run(keys[index], Buffer.from(fresh[n].buffer, fresh[n].byteOffset, fresh[n].byteLength)),
            );
          });
      this.stored(store, missing.length);
      missing.forEach((index, n) => (vectors[index] = fresh[n]));
    }
    return vectors as Float32Array[];
  }

  /** Runs the cache's write; a refusal of the storage skips it (counted, logged once per run). */
  private stored(store: () => void, vectors: number): void {
    try {
      store();
    } catch (error) {
      if (!isStorageFailure(error)) throw error;
      this.skipped += vectors;
      if (!this.refusing)
        this.logger?.warn({ err: error }, 'the embedding cache cannot write: vectors are answered uncached meanwhile');
      this.refusing = true;
      return;
    }
    if (this.refusing) this.logger?.info({ skipped: this.skipped }, 'the embedding cache writes again');
    this.refusing = false;
  }

  /** Vectors not cached because the storage refused the write, since this cache was opened. */
  get skippedWrites(): number {
    return this.skipped;
  }

  /** Number of cached vectors (tests check that a restart re-embeds nothing). */
  size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() as { n: number }).n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
    await this.inner.close();
  }
}
