import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, found by walking up from this module: the same answer when
 * run from the TypeScript sources (tsx) and from the compiled dist/ folder.
 */
export const PROJECT_ROOT: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
})();

/** A file of the project by its path from the project root. */
export function projectFile(path: string): string {
  return join(PROJECT_ROOT, path);
}
