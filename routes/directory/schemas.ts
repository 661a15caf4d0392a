import { Type, type Static } from '@sinclair/typebox';
import { ACCESS_VALUES } from '../../contracts/directory/values.js';
import { DatabasePatchBody } from '../../commands/directory/schemas.js';

/** Response and query schemas of the directory API; they also write its OpenAPI reference. */
export const ErrorBody = Type.Object({ error: Type.String() }, { description: 'What went wrong.' });

export const TokenQuery = {
  token: Type.Optional(
    Type.String({ description: 'The directory API token, when not sent as `Authorization: Bearer`.' }),
  ),
};

export const TermRef = Type.Object({ handle: Type.String(), name: Type.String() });
export type TermRef = Static<typeof TermRef>;

export const DatabaseRecord = Type.Object({
  handle: Type.String(),
  name: Type.String(),
  description: Type.String(),
  subjects: Type.Array(TermRef),
  types: Type.Array(TermRef),
  access: Type.Union(ACCESS_VALUES.map((a) => Type.Literal(a))),
  audience: Type.Array(Type.String()),
  featured: Type.Boolean(),
  links: Type.Object({
    open: Type.String({
      description:
        'Tracked address on this server: 302 to the database (through the proxy when proxied); counts the click.',
    }),
    details: Type.String({ description: "Address of the database's HTML details page on this server." }),
  }),
});
/** A database as the API answers it: api-v1.ts builds exactly this (tsc says so). */
export type DatabaseRecord = Static<typeof DatabaseRecord>;

export const ListMeta = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});

export const TermWithCount = Type.Object({
  handle: Type.String(),
  name: Type.String(),
  database_count: Type.Integer(),
});
export type TermWithCount = Static<typeof TermWithCount>;

export const LibraryRecord = Type.Object({
  name: Type.String(),
  plan: Type.String(),
  brand_color: Type.String(),
  database_count: Type.Integer({ description: 'Databases patrons can see.' }),
  lists: Type.Array(TermRef, { description: "The library's curated lists (GET /api/v1/lists/{handle})." }),
  links: Type.Object({
    databases: Type.String(),
    subjects: Type.String(),
    types: Type.String(),
    widget: Type.String(),
  }),
});
export type LibraryRecord = Static<typeof LibraryRecord>;

export const ListRecord = Type.Object({
  handle: Type.String(),
  name: Type.String(),
  databases: Type.Array(DatabaseRecord),
});
export type ListRecord = Static<typeof ListRecord>;

/** What the admin routes (admin.ts) show of a token: never its hash. */
export const TokenSummary = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  allowed_origins: Type.Array(Type.String()),
  created_at: Type.String(),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});
export type TokenSummary = Static<typeof TokenSummary>;

export const IssuedToken = Type.Object({
  ...TokenSummary.properties,
  token: Type.String({ description: 'The token itself. Shown once: only its hash is stored.' }),
});
export type IssuedToken = Static<typeof IssuedToken>;

export const LibrarySettingsRecord = Type.Object({
  name: Type.String(),
  plan: Type.String(),
  brand_color: Type.String(),
  proxy_prefix: Type.String(),
});
export type LibrarySettingsRecord = Static<typeof LibrarySettingsRecord>;

/** A database as an admin changes it: its handle and every field (the patch body's keys). */
export const DatabaseAdminRecord = Type.Object({ handle: Type.String(), ...DatabasePatchBody.properties });
export type DatabaseAdminRecord = Static<typeof DatabaseAdminRecord>;

/** The errors every /api/v1/ route may answer with. */
export const directoryErrors = {
  401: { ...ErrorBody, description: 'Missing or invalid token.' },
  403: { ...ErrorBody, description: "Origin not allowed for the token, or the library's plan has no API access." },
  429: { ...ErrorBody, description: '120 requests per minute per token exceeded; see Retry-After.' },
};
