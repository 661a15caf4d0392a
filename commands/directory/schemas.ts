import { Type, type Static } from '@sinclair/typebox';
import { ACCESS_VALUES, BRAND_COLOR_PATTERN, PLANS } from '../../contracts/directory/values.js';

/**
 * The directory's write bodies: the admin routes validate them (routes/directory/admin.ts), the
 * handlers take their types (handlers.ts), so a field is declared once. The schema checks shape;
 * the deciders check what a value means (an origin, a URL prefix, a term that exists).
 */

/** POST /api/directory/tokens (no body at all: the defaults, any origin and no label). */
export const IssueTokenBody = Type.Object(
  {
    allowed_origins: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 })),
    label: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type IssueTokenInput = Static<typeof IssueTokenBody>;

/** PATCH /api/directory/library: absent keys keep their value. */
export const ConfigureLibraryBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    plan: Type.Optional(Type.Union(PLANS.map((p) => Type.Literal(p)))),
    brand_color: Type.Optional(Type.String({ pattern: BRAND_COLOR_PATTERN })),
    proxy_prefix: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type ConfigureLibraryInput = Static<typeof ConfigureLibraryBody>;

/** PATCH /api/directory/databases/{handle}: absent keys keep their value. */
export const DatabasePatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    subjects: Type.Optional(Type.Array(Type.String())),
    types: Type.Optional(Type.Array(Type.String())),
    access: Type.Optional(Type.Union(ACCESS_VALUES.map((a) => Type.Literal(a)))),
    audience: Type.Optional(Type.Array(Type.String())),
    featured: Type.Optional(Type.Boolean()),
    hidden: Type.Optional(Type.Boolean()),
    proxied: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type DatabasePatchInput = Static<typeof DatabasePatchBody>;
