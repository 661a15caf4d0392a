import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { openZip } from '../../../workers/backups/zip-reader.js';

export interface UnzippedEntry {
  content: Buffer;
  /** 0 stored, 8 deflated. */
  method: number;
}

/** Unzips a whole (small) archive into memory, entry by entry. */
export async function unzip(file: string): Promise<Map<string, UnzippedEntry>> {
  const zip = await openZip(file);
  try {
    const out = new Map<string, UnzippedEntry>();
    for (const [name, entry] of zip.entries) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.open(name)) chunks.push(chunk as Buffer);
      out.set(name, { content: Buffer.concat(chunks), method: entry.compressionMethod });
    }
    return out;
  } finally {
    zip.close();
  }
}

/** Info-ZIP's own integrity test, when the tool is installed: the archive is a standard zip. */
export function unzipTestPasses(file: string): boolean | null {
  if (!existsSync('/usr/bin/unzip')) return null;
  try {
    execFileSync('/usr/bin/unzip', ['-tqq', file], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
