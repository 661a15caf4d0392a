import { rename, rm, writeFile } from 'node:fs/promises';
import { createWriteStream, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ModuleRuntime } from '../../commands/module-runtime.js';
import { checksumFileFor } from '../../contracts/backups/paths.js';
import { errorField } from '../../infra/errors.js';
import { findBackup } from '../../queries/backups/backups.js';
import { archivesOf } from './archive-store.js';
import { HashingStream } from './hashing-stream.js';

/** A download refused before anything is written, with what the operator can do about it. */
export class DownloadRefusedError extends Error {
  override name = 'DownloadRefusedError';
}

/**
 * Copies a complete backup's archive from its store (DATA_DIR/backups or FILES_URL's database)
 * to `dest` on this machine, with `dest.sha256` beside it, for `npm run restore`: streamed
 * through a partial file checked against the record's `o:checksum`, then renamed, so `dest`
 * only ever holds the whole archive. An existing `dest` is never overwritten. `progress` is told
 * the size, then each part's bytes.
 */
export async function downloadArchive(
  runtime: ModuleRuntime,
  id: number,
  dest: string,
  progress?: { start(total: number): void; tick(amount: number): void },
): Promise<{ filename: string; size: number; checksum: string }> {
  await runtime.projections.catchUp();
  const record = await findBackup(runtime.documents, id);
  if (!record) throw new DownloadRefusedError(`No backup ${id}.`);
  if (record.status !== 'complete' || !record.checksum)
    throw new DownloadRefusedError(`Backup ${id} is ${record.status}: it has no archive.`);
  const archives = archivesOf(runtime, record);
  const info = archives ? await archives.stat(record.filename) : null;
  if (!archives || !info)
    throw new DownloadRefusedError(
      archives
        ? `The archive of backup ${id} is not in this server's backup storage (${record.storage}).`
        : `Backup ${id} is stored in ${record.storage}, which this configuration does not reach (FILES_URL).`,
    );
  if (existsSync(dest)) throw new DownloadRefusedError(`${dest} exists already: it is not overwritten.`);
  const partial = `${dest}.partial`;
  const hashing = new HashingStream();
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      progress?.tick(chunk.length);
      done(null, chunk);
    },
  });
  progress?.start(info.size);
  try {
    await pipeline(archives.openRead(record.filename), hashing, counted, createWriteStream(partial, { flags: 'wx' }));
    if (`sha256:${hashing.hex()}` !== record.checksum || hashing.bytes !== record.size)
      throw new Error(`The archive of backup ${id} does not match its record's checksum: it is damaged.`);
    await rename(partial, dest);
    await writeFile(checksumFileFor(dest), `${hashing.hex()}  ${basename(dest)}\n`);
  } catch (error) {
    // A partial file there already is another download's: left alone.
    if (errorField(error, 'code') !== 'EEXIST') await rm(partial, { force: true });
    throw error;
  }
  return { filename: record.filename, size: hashing.bytes, checksum: record.checksum };
}
