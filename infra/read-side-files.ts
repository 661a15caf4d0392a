import { relative, sep } from 'node:path';
import type { AppConfig } from './config.js';
import { embeddingCacheFile } from './embedder/select.js';
import { questionLogFile } from './question-log/sqlite.js';
import { readModelsFile, readModelsTextFile } from './select.js';
import { vectorIndexFile } from './vector-index/select.js';

/** A SQLite file of the read side in DATA_DIR that a backup carries, so a restore starts without a rebuild. */
export interface ReadSideFile {
  /** Its path inside DATA_DIR with '/' separators: the same name in the archive and in the restored DATA_DIR. */
  name: string;
  path: string;
  /**
   * Not made from the log (what patrons asked the chatbot): a restore puts it back even when the
   * restored log's positions differ from the archived ones, where the other files are rebuilt instead.
   */
  independentOfLog?: boolean;
}

function inDataDir(config: AppConfig, path: string): ReadSideFile {
  return { name: relative(config.dataDir, path).split(sep).join('/'), path };
}

/**
 * The read side's SQLite files for this configuration, in the order a backup snapshots them.
 * The read models come first: they hold the projections' checkpoints, and every file after them
 * is snapshotted later, so it is at or ahead of those checkpoints, never behind; the start after
 * a restore applies the log from the checkpoints again, which idempotent projections make
 * harmless. A new read-side SQLite file is added here; a file that only
 * the production adapters replace (MongoDB) is left out when they are configured.
 */
export function readSideFiles(config: AppConfig): ReadSideFile[] {
  const files: ReadSideFile[] = [];
  if (!config.mongoUrl) {
    files.push(inDataDir(config, readModelsFile(config)));
    // After the read models: a text row it lacks is owed in them, one it holds ahead of them is
    // for a document the log (archived after every snapshot) writes again at the restored start,
    // which owes the row anew.
    files.push(inDataDir(config, readModelsTextFile(config)));
  }
  // Embeddings cost a model run (or a paid API call) each: a restore keeps them rather than re-embedding.
  files.push(inDataDir(config, embeddingCacheFile(config)));
  // The chunks and their vectors: a restored server searches at once instead of indexing everything
  // again. Index jobs still waiting when the snapshot is taken are not in it (see docs/BACKUPS.md).
  if (!config.elasticsearchUrl) files.push(inDataDir(config, vectorIndexFile(config)));
  // What patrons asked: kept nowhere else (not in the log); with QUESTION_LOG_URL, in PostgreSQL
  // (backed up with that database, not here).
  if (!config.questionLogUrl) files.push({ ...inDataDir(config, questionLogFile(config)), independentOfLog: true });
  return files;
}
