import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorField } from '../../infra/errors.js';

/**
 * Regular files under a folder, depth first in name order, as paths relative to it (with `/`).
 * A missing folder has no files; symbolic links are skipped so nothing outside is archived.
 * `skip` names folders directly under the root to leave out.
 */
export async function* filesUnder(
  root: string,
  relative = '',
  skip: readonly string[] = [],
): AsyncGenerator<{ absolute: string; relative: string }> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, relative), { withFileTypes: true });
  } catch (error) {
    if (errorField(error, 'code') === 'ENOENT' && relative === '') return;
    throw error;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory() && relative === '' && skip.includes(entry.name)) continue;
    if (entry.isDirectory()) yield* filesUnder(root, rel);
    else if (entry.isFile()) yield { absolute: join(root, rel), relative: rel };
  }
}
