import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { blogDataDir } from './datasets.js';
import { startAppServer, sleep, type RunningProcess } from './processes.js';

/** A rate limit no benchmark reaches: the chatbot's per-IP limit would otherwise refuse the load. */
export const UNLIMITED_CHATBOT = { CHATBOT_RATE_LIMIT: '1000000000', CHATBOT_RATE_WINDOW_SECONDS: '1' };

/** Rows of a table in a SQLite file of the DATA_DIR, read-only; null while the file or the table is missing. */
function countRows(dataDir: string, file: string, table: string): number | null {
  try {
    const db = new Database(join(dataDir, file), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** Cached embeddings so far, read from the embedder's cache file beside the log. */
function cachedEmbeddings(dataDir: string): number {
  return countRows(dataDir, 'embeddings.sqlite', 'embeddings') ?? 0;
}

/**
 * Waits until the chatbot worker has embedded `expected` chunks (its embedder cache counts
 * them) and the count has stopped growing. Returns the seconds waited. Without a cache file
 * after a few seconds the chatbot is not running, and there is nothing to wait for.
 */
export async function waitForIndexing(dataDir: string, expected: number): Promise<number> {
  const began = Date.now();
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    const count = cachedEmbeddings(dataDir);
    if (count !== last) {
      last = count;
      stableSince = Date.now();
    }
    if (count >= expected && Date.now() - stableSince >= 2000) return (Date.now() - began - 2000) / 1000;
    if (count === 0 && Date.now() - began > 5000 && !existsSync(join(dataDir, 'embeddings.sqlite'))) return 0;
    if (Date.now() - stableSince > 120_000) throw new Error(`indexing stalled at ${count} of ${expected} chunks`);
    await sleep(250);
  }
}

/** Marks of index work still owed (the chatbot's index outbox), read from the read-model file; null before the table exists. */
function owedIndexWork(dataDir: string): number | null {
  return countRows(dataDir, 'read-models.sqlite', 'docs_chatbot_index_outbox');
}

/**
 * Waits until the chatbot owes the index nothing: every mark of its index outbox removed, the
 * stand-in word vectors' second stage (the model's) included. The embedder's cache count alone
 * stops growing between two of the model's batches, so a load could start beside the indexing.
 */
export async function waitForIndexOutbox(dataDir: string, timeoutMs = 600_000): Promise<void> {
  const began = Date.now();
  for (;;) {
    if (owedIndexWork(dataDir) === 0) return;
    if (Date.now() - began > timeoutMs)
      throw new Error(`the chatbot still owed ${owedIndexWork(dataDir)} index jobs after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

export interface ContentServer {
  /** The running server (a new one after `restart`). */
  server: RunningProcess;
  dataDir: string;
  posts: number;
  /** Seconds from the server answering until every post was embedded and indexed. */
  indexSeconds: number;
  /** Stops the server and starts another on the same DATA_DIR (the read models and the index persist). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The real server holding `posts` published posts of one chatbot chunk each (under 120 words),
 * so the vector index holds as many chunks as there are posts. Waits until the chatbot worker
 * has embedded them all: the embedder's cache counts them, and stops growing once done.
 */
export async function startContentServer(posts: number): Promise<ContentServer> {
  const data = await blogDataDir('content', posts, { contentWords: 80, words: 'english' });
  let server: RunningProcess | null = null;
  // The search and memory figures are the index's and the server's: the sentence model would
  // take hours to read 100,000 posts on two cores, and its own costs are bench/embedding.ts's.
  const env = { ...UNLIMITED_CHATBOT, CHATBOT_SENTENCE_MODEL: 'off' };
  try {
    server = await startAppServer(data.dir, env);
    const indexSeconds = await waitForIndexing(data.dir, posts);
    const content: ContentServer = {
      server,
      dataDir: data.dir,
      posts,
      indexSeconds,
      async restart() {
        await content.server.stop();
        content.server = await startAppServer(data.dir, env);
      },
      async stop() {
        await content.server.stop();
        data.cleanup();
      },
    };
    return content;
  } catch (error) {
    await server?.stop();
    data.cleanup();
    throw error;
  }
}
