import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { BackupIncludes, INCLUDE_FLAGS } from '../../contracts/backups/fields.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';

/**
 * The backups' write body, derived from the parts' flags (contracts/backups/fields.ts): the route
 * validates it (routes/backups/index.ts) and reads the parts to include through includesFrom,
 * which the request (handlers.ts requestBackup) records.
 */
type Flags = typeof BackupIncludes.properties;

/** Each flag optional, its default kept: documented, and filled in by the app's validation. */
const optionalFlags = Object.fromEntries(
  INCLUDE_FLAGS.map((key) => [key, Type.Optional(BackupIncludes.properties[key])]),
  // Built flag by flag from the fields' own schemas, each made optional.
) as { [K in keyof Flags]: TOptional<Flags[K]> };

/** POST /api/backups: every part is included unless its flag says false (an empty body: everything). */
export const CreateBackupBody = Type.Object(optionalFlags, { additionalProperties: false });
export type CreateBackupInput = Static<typeof CreateBackupBody>;

/** The parts a body asks for, every flag absent counting as true. */
export function includesFrom(body: CreateBackupInput | undefined): BackupIncludes {
  return fieldsOf(BackupIncludes, body ?? {});
}
