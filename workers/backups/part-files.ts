import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { errorField } from '../../infra/errors.js';
import { FILE_AREAS, STORED_NAME, type FileArea, type FileAreas } from '../../infra/file-storage/port.js';
import { filesUnder } from './folder-files.js';

/** The folder of DATA_DIR whose entries are the stored files (`files/<area>/<stored name>`). */
export const STORED_FILES_FOLDER = 'files';

/** One file of an archive's folder part: its path inside the folder, and its bytes. */
export interface PartFile {
  /** With `/`, relative to the part's folder: `media/<stored name>`. */
  relative: string;
  /**
   * Its bytes, opened before the file is added: null for a file removed meanwhile, which is
   * skipped. Once open it stays readable to the end even if it is removed.
   */
  open(): Promise<Readable | null>;
}

async function openFile(path: string): Promise<Readable | null> {
  try {
    const handle = await open(path, 'r');
    return handle.createReadStream({ highWaterMark: 1024 * 1024 });
  } catch (error) {
    if (errorField(error, 'code') === 'ENOENT') return null;
    throw error;
  }
}

/** A stored file's stream once its first bytes (or its end) came, or null when it is not stored. */
async function openStored(files: FileAreas, area: FileArea, storedName: string): Promise<Readable | null> {
  const stream = files.area(area).openRead(storedName);
  try {
    await once(stream, 'readable');
  } catch (error) {
    if (errorField(error, 'code') === 'ENOENT') return null;
    throw error;
  }
  return stream;
}

/**
 * The files of a folder part, depth first in name order. `files` with the embedded adapter, and
 * every other folder, are DATA_DIR's folder as it is (its `skip` folders left out); with an
 * adapter keeping them elsewhere (FILES_URL), the stored files are read through it, under the
 * paths they have on disk (`<area>/<stored name>`), so an archive is the same either way.
 */
export async function* partFiles(
  dataDir: string,
  folder: string,
  skip: readonly string[] = [],
  files?: FileAreas,
): AsyncGenerator<PartFile> {
  if (folder === STORED_FILES_FOLDER && files && files.kind !== 'local') {
    for (const area of [...FILE_AREAS].sort()) {
      const names = (await files.area(area).list()).map((file) => file.storedName).sort();
      for (const name of names) yield { relative: `${area}/${name}`, open: () => openStored(files, area, name) };
    }
    return;
  }
  for await (const file of filesUnder(join(dataDir, folder), '', skip)) {
    yield { relative: file.relative, open: () => openFile(file.absolute) };
  }
}

/** The area and name of an archive entry that is a stored file (`files/<area>/<stored name>`), else null. */
export function storedFileOf(path: string): { area: FileArea; storedName: string } | null {
  const [folder, area, storedName, ...rest] = path.split('/');
  if (folder !== STORED_FILES_FOLDER || rest.length > 0 || storedName === undefined) return null;
  const known = FILE_AREAS.find((a) => a === area);
  return known && STORED_NAME.test(storedName) ? { area: known, storedName } : null;
}
