import { Type, type Static } from '@sinclair/typebox';
import { DatabaseFields, LibrarySettings, TokenFields } from '../../contracts/directory/fields.js';
import { optional } from '../../infra/schema/record-fields.js';

/**
 * The directory's write bodies, derived from its records' fields (contracts/directory/fields.ts):
 * the admin routes validate them (routes/directory/admin.ts), the handlers take their types
 * (handlers.ts), so a field is declared once. The schema checks shape; the deciders check what a
 * value means (an origin, a URL prefix, a term that exists).
 */

/** POST /api/directory/tokens (no body at all: the defaults, any origin and no label). */
export const IssueTokenBody = Type.Object(optional(TokenFields.properties), { additionalProperties: false });
export type IssueTokenInput = Static<typeof IssueTokenBody>;

/** PATCH /api/directory/library: absent keys keep their value. */
export const ConfigureLibraryBody = Type.Object(optional(LibrarySettings.properties), { additionalProperties: false });
export type ConfigureLibraryInput = Static<typeof ConfigureLibraryBody>;

/** PATCH /api/directory/databases/{handle}: absent keys keep their value. */
export const DatabasePatchBody = Type.Object(optional(DatabaseFields.properties), { additionalProperties: false });
export type DatabasePatchInput = Static<typeof DatabasePatchBody>;
