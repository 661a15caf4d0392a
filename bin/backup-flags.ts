import { BackupIncludes, INCLUDE_FLAGS } from '../contracts/backups/fields.js';
import { fieldsOf } from '../infra/schema/record-fields.js';

export const BACKUP_USAGE = 'Usage: npm run backup -- [--no-db] [--no-files] [--no-themes] [--no-modules] [--no-api]';

/** `--no-db` turns include_db off, and so on: every part is in unless a flag leaves it out. */
const FLAG_OF: Record<string, keyof BackupIncludes> = Object.fromEntries(
  INCLUDE_FLAGS.map((flag) => [`--no-${flag.slice('include_'.length)}`, flag]),
);

/**
 * The include flags of `npm run backup`, as POST /api/backups takes them in its body. Anything
 * else on the command line is refused by name, so a typo never makes a backup the caller did
 * not ask for.
 */
export function parseBackupFlags(args: readonly string[]): { includes: BackupIncludes } | { error: string } {
  const includes = fieldsOf(BackupIncludes, {});
  for (const arg of args) {
    const flag = FLAG_OF[arg];
    if (!flag) return { error: `Unknown argument "${arg}". ${BACKUP_USAGE}` };
    includes[flag] = false;
  }
  return { includes };
}
