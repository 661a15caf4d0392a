import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingStream } from './hashing-stream.js';
import { MANIFEST_NAME, parseManifest, type Manifest } from './manifest.js';
import { checksumFileFor } from '../../contracts/backups/paths.js';
import { openZip, type ZipArchive } from './zip-reader.js';
import { errorField, errorMessage } from '../../infra/errors.js';

/** The restore cannot go ahead (damaged archive, target not empty); the message says why. */
export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

async function hashOf(source: NodeJS.ReadableStream): Promise<{ sha256: string; size: number }> {
  const hashing = new HashingStream();
  await pipeline(source, hashing, discard());
  return { sha256: hashing.hex(), size: hashing.bytes };
}

/**
 * Checks `ARCHIVE.zip.sha256` when it is there. Returns false when there is none, so the caller
 * can say that only the manifest's checksums were checked.
 */
export async function checkChecksumFile(archive: string): Promise<boolean> {
  let expected: string;
  try {
    expected = (await readFile(checksumFileFor(archive), 'utf8'))
      .trim()
      .split(/\s+/)[0]
      .replace(/^sha256:/, '')
      .toLowerCase();
  } catch (error) {
    if (errorField(error, 'code') === 'ENOENT') return false;
    throw error;
  }
  const actual = (await hashOf(createReadStream(archive))).sha256;
  if (actual !== expected) {
    throw new RestoreRefusedError(
      'The archive does not match its .sha256 checksum file: it is damaged or was changed.',
    );
  }
  return true;
}

/**
 * Opens the archive and checks it against manifest.json: the manifest is valid, it lists
 * exactly the archive's entries, and every entry has its listed size and SHA-256. Nothing
 * is written; the caller restores only from an archive that passed.
 */
export async function verifyArchive(
  archive: string,
  progress: { start(total: number): void; tick(): void } = { start() {}, tick() {} },
): Promise<{ zip: ZipArchive; manifest: Manifest }> {
  let zip: ZipArchive;
  try {
    zip = await openZip(archive);
  } catch (error) {
    if (errorField(error, 'code') === 'ENOENT') throw new RestoreRefusedError('The archive file does not exist.');
    throw new RestoreRefusedError(
      `The file is not a readable backup archive (damaged or not a zip): ${errorMessage(error)}.`,
    );
  }
  try {
    if (!zip.entries.has(MANIFEST_NAME))
      throw new RestoreRefusedError('The archive has no manifest.json: it is not a backup of this application.');
    let manifest: Manifest;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.open(MANIFEST_NAME))
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      manifest = parseManifest(Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      throw new RestoreRefusedError(`The archive's manifest cannot be used: ${errorMessage(error)}`);
    }
    const listed = new Set(manifest.entries.map((e) => e.path));
    for (const name of zip.entries.keys()) {
      if (name !== MANIFEST_NAME && !listed.has(name))
        throw new RestoreRefusedError(`The archive holds ${name}, which its manifest does not list.`);
    }
    progress.start(manifest.entries.length);
    for (const entry of manifest.entries) {
      if (!zip.entries.has(entry.path))
        throw new RestoreRefusedError(`The archive is missing ${entry.path}, which its manifest lists.`);
      let actual: { sha256: string; size: number };
      try {
        actual = await hashOf(await zip.open(entry.path));
      } catch (error) {
        throw new RestoreRefusedError(
          `${entry.path} cannot be read from the archive (damaged): ${errorMessage(error)}.`,
        );
      }
      if (actual.size !== entry.size || actual.sha256 !== entry.sha256) {
        throw new RestoreRefusedError(
          `${entry.path} does not match the checksum in manifest.json: the archive is damaged.`,
        );
      }
      progress.tick();
    }
    return { zip, manifest };
  } catch (error) {
    zip.close();
    throw error;
  }
}
