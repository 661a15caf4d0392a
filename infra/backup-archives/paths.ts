import { join } from 'node:path';

/** Where archives live on the local store, and where every store stages them; never itself part of an archive. */
export function backupsDir(dataDir: string): string {
  return join(dataDir, 'backups');
}

/**
 * The archive of a record, inside this installation's backups folder. A record restored from
 * another installation keeps its old `o:path`; deleting it must never reach into that folder.
 */
export function archiveFileFor(dataDir: string, filename: string): string {
  return join(backupsDir(dataDir), filename);
}

/** `ARCHIVE.zip.sha256` beside the archive: the checksum a restore from a bare file checks. */
export function checksumFileFor(archive: string): string {
  return `${archive}.sha256`;
}

/** What an archive may have on this machine's disk: itself, its checksum file, its partial file while written. */
export function localFilesOf(archive: string): string[] {
  return [archive, checksumFileFor(archive), `${archive}.partial`];
}
