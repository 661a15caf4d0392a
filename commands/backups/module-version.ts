import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { projectFile } from '../../infra/project-root.js';

const WithVersion = Type.Object({ version: Type.String() });

/** The version recorded in every backup: the application's package.json version. */
export const BACKUP_MODULE_VERSION: string = (() => {
  const pkg: unknown = JSON.parse(readFileSync(projectFile('package.json'), 'utf8'));
  return Value.Check(WithVersion, pkg) ? pkg.version : '0.0.0';
})();
