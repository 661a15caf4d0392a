import { readFileSync } from 'node:fs';

/** The version recorded in every backup: the application's package.json version. */
export const BACKUP_MODULE_VERSION: string = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
})();
