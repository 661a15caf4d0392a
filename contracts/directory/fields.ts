import { Type, type Static } from '@sinclair/typebox';
import { fieldsOf, withDefault } from '../../infra/schema/record-fields.js';
import { ACCESS_VALUES, BRAND_COLOR_PATTERN, HANDLE_PATTERN, PLANS } from './values.js';

/*
 * The directory's records, each field declared once: the events carry them (events.ts), the read
 * models keep them (documents.ts), and the write bodies (commands/directory/schemas.ts), the
 * fixture's section (commands/directory/importer.ts), a new record's defaults (`default`, filled
 * in by fieldsOf, infra/schema/record-fields.ts) and the answers that show them are derived from
 * them. The limits are those the bodies document and the deciders' rules hold every value to.
 */

export const LIMITS = {
  libraryName: 200,
  termName: 200,
  databaseName: 300,
  description: 20_000,
  url: 2000,
  audience: 100,
  label: 200,
  origin: 300,
  origins: 100,
} as const;

/** Handles name subjects, types, databases and lists in URLs (values.ts). */
export const Handle = Type.String({ pattern: HANDLE_PATTERN });

export const LibrarySettings = Type.Object({
  name: Type.String({ minLength: 1, maxLength: LIMITS.libraryName }),
  plan: Type.Union(PLANS.map((p) => Type.Literal(p))),
  brand_color: withDefault(Type.String({ pattern: BRAND_COLOR_PATTERN }), '#0b5394'),
  /** EZproxy-style prefix the database URL is appended to as it is; '' when the library has none. */
  proxy_prefix: withDefault(Type.String({ maxLength: LIMITS.url }), ''),
});
export type LibrarySettings = Static<typeof LibrarySettings>;

/** A library never configured: the settings its first change starts from, and what the API shows until then. */
export const UNCONFIGURED_LIBRARY: LibrarySettings = fieldsOf(LibrarySettings, { name: '', plan: 'basic' });

export const DatabaseFields = Type.Object({
  name: Type.String({ minLength: 1, maxLength: LIMITS.databaseName }),
  description: withDefault(Type.String({ maxLength: LIMITS.description }), ''),
  url: Type.String({ minLength: 1, maxLength: LIMITS.url }),
  /** Subject handles (their rule: database-decider.ts). */
  subjects: withDefault(Type.Array(Type.String()), []),
  /** Type handles. */
  types: withDefault(Type.Array(Type.String()), []),
  access: Type.Union(ACCESS_VALUES.map((a) => Type.Literal(a))),
  /** Each a non-empty text of at most LIMITS.audience characters. */
  audience: withDefault(Type.Array(Type.String()), []),
  featured: withDefault(Type.Boolean(), false),
  hidden: withDefault(Type.Boolean(), false),
  proxied: withDefault(Type.Boolean(), false),
});
export type DatabaseFields = Static<typeof DatabaseFields>;

/** A subject or a database type. */
export const TermFields = Type.Object({
  handle: Handle,
  name: Type.String({ minLength: 1, maxLength: LIMITS.termName }),
});
export type TermFields = Static<typeof TermFields>;

/** A curated list: its databases in the order given. */
export const ListFields = Type.Object({
  handle: Handle,
  name: Type.String({ minLength: 1, maxLength: LIMITS.termName }),
  databases: Type.Array(Handle),
});
export type ListFields = Static<typeof ListFields>;

/** An API token as issued (beside its id and hash): no origins is any origin. */
export const TokenFields = Type.Object({
  allowed_origins: withDefault(Type.Array(Type.String({ maxLength: LIMITS.origin }), { maxItems: LIMITS.origins }), []),
  label: withDefault(Type.String({ maxLength: LIMITS.label }), ''),
});
export type TokenFields = Static<typeof TokenFields>;
