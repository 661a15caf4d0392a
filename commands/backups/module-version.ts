import { readFileSync } from 'node:fs';
import { projectFile } from '../../infra/project-root.js';

/** The version recorded in every backup: the application's package.json version. */
export const BACKUP_MODULE_VERSION: string = (() => {
  const pkg = JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
})();
