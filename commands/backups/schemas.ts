import { Type, type Static } from '@sinclair/typebox';
import type { BackupIncludes } from '../../contracts/backups/events.js';

/**
 * The backups' write body: the route validates it (routes/backups/index.ts) and reads the parts
 * to include through includesFrom, which the request (handlers.ts requestBackup) records.
 */
const flag = (what: string) =>
  Type.Optional(Type.Boolean({ default: true, description: `Include ${what} (default true).` }));

/** POST /api/backups: every part is included unless its flag says false (an empty body: everything). */
export const CreateBackupBody = Type.Object(
  {
    include_db: flag(
      'the complete event log, the source of truth, with snapshots of the read side (read models and their checkpoints, the embedding cache), so the restored server starts without a rebuild',
    ),
    include_files: flag('uploaded files'),
    include_themes: flag('the themes folder'),
    include_modules: flag('the modules folder'),
    include_api: flag('JSON exports of every list the API serves'),
  },
  { additionalProperties: false },
);
export type CreateBackupInput = Static<typeof CreateBackupBody>;

/** The parts a body asks for, every flag absent counting as true. */
export function includesFrom(body: CreateBackupInput | undefined): BackupIncludes {
  return {
    include_db: body?.include_db ?? true,
    include_files: body?.include_files ?? true,
    include_themes: body?.include_themes ?? true,
    include_modules: body?.include_modules ?? true,
    include_api: body?.include_api ?? true,
  };
}
