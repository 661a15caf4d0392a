import { Type, type Static } from '@sinclair/typebox';
import type { BackupDoc } from '../../contracts/backups/documents.js';
import { BACKUP_STATUSES, IncludesRecord } from '../../contracts/backups/fields.js';
import { jsonLd, type JsonLdBody } from '../json-ld.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

/**
 * The `o:Backup` record (seed 002): every field, JSON-LD. `path` is where this installation
 * keeps the archive (BackupService.archiveLocation), not the path recorded when it was made: a
 * DATA_DIR moved or restored elsewhere never shows a path on another server.
 */
export function representBackup(doc: BackupDoc, baseUrl: string, path: string): Backup {
  return jsonLd<JsonLdBody<Backup>>(baseUrl, 'o:Backup', 'backups', doc.id, {
    'o:filename': doc.filename,
    'o:path': path,
    'o:storage': doc.storage,
    'o:size': doc.size,
    'o:status': doc.status,
    'o:checksum': doc.checksum,
    // Beyond the seed's fields, so only where there is something to say (a failed backup).
    ...(doc.status === 'failed' && doc.error ? { 'o:error': doc.error } : {}),
    'o:created_by': doc.created_by,
    'o:created_at': sqlTimestamp(doc.created_at),
    'o:metadata': {
      backup_module_version: doc.module_version,
      created_at: doc.created_at,
      includes: { ...doc.includes },
    },
  });
}

/** A backup's status, as the record and the list's filter name it. */
export const Status = Type.Union(BACKUP_STATUSES.map((status) => Type.Literal(status)));

/**
 * Response schema: documents the record in the OpenAPI reference and serialises it; its Static
 * type is what representBackup returns. `@type` is documented as the literal and typed as the
 * string jsonLd writes.
 */
export const BackupRecord = Type.Object(
  {
    '@context': Type.String(),
    '@id': Type.String(),
    '@type': Type.Unsafe<string>(Type.Literal('o:Backup')),
    'o:id': Type.Integer(),
    'o:filename': Type.String({ description: 'Archive file name.' }),
    'o:path': Type.String({
      description:
        'Where the archive is kept: its absolute path on the server (`local`), or `postgresql://host:port/database?schema=name#backups/<o:filename>` (`postgresql`; never credentials).',
    }),
    'o:storage': Type.String({
      description:
        'Storage kind: `local` (DATA_DIR/backups of the server), or `postgresql` (the database of FILES_URL, shared by every server).',
    }),
    'o:size': Type.Integer({ description: 'Archive size in bytes (0 until complete).' }),
    'o:status': Status,
    'o:checksum': Type.Union([Type.String({ description: '`sha256:<hex>` of the archive file.' }), Type.Null()], {
      description: '`sha256:<hex>` of the archive file; null while no archive exists.',
    }),
    'o:error': Type.Optional(
      Type.String({
        description:
          'Why a `failed` backup failed, in words an operator can act on (never a path); absent otherwise. Not in the seed: the command line and the schedule have no response to say it in.',
      }),
    ),
    'o:created_by': Type.Union([Type.Integer(), Type.Null()], {
      description: 'User id; null for backups made from the command line or by BACKUP_SCHEDULE.',
    }),
    'o:created_at': Type.String({ description: '`YYYY-MM-DD HH:MM:SS` (UTC).' }),
    'o:metadata': Type.Object({
      backup_module_version: Type.String(),
      created_at: Type.String({ description: 'ISO 8601 datetime.' }),
      includes: IncludesRecord,
    }),
  },
  { additionalProperties: true },
);
export type Backup = Static<typeof BackupRecord>;
