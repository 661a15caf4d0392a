import type { DomainEvent } from '../domain-event.js';
import type { Access, Plan } from './values.js';

export interface LibrarySettings {
  name: string;
  plan: Plan;
  brand_color: string;
  /** EZproxy-style prefix the database URL is appended to as it is; '' when the library has none. */
  proxy_prefix: string;
}

export interface DatabaseFields {
  name: string;
  description: string;
  url: string;
  subjects: string[];
  types: string[];
  access: Access;
  audience: string[];
  featured: boolean;
  hidden: boolean;
  proxied: boolean;
}

export type LibraryConfigured = DomainEvent<'LibraryConfigured', LibrarySettings>;
export type DirectoryTokenIssued = DomainEvent<
  'DirectoryTokenIssued',
  { id: number; token_hash: string; allowed_origins: string[]; label: string }
>;
export type DirectoryTokenRevoked = DomainEvent<'DirectoryTokenRevoked', { id: number }>;
export type SubjectDefined = DomainEvent<'SubjectDefined', { handle: string; name: string }>;
export type DatabaseTypeDefined = DomainEvent<'DatabaseTypeDefined', { handle: string; name: string }>;
export type DatabaseAdded = DomainEvent<'DatabaseAdded', { handle: string; fields: DatabaseFields }>;
export type DatabaseUpdated = DomainEvent<
  'DatabaseUpdated',
  { handle: string; fields: DatabaseFields; changed: string[] }
>;
export type LibraryListDefined = DomainEvent<
  'LibraryListDefined',
  { handle: string; name: string; databases: string[] }
>;
/** A patron followed a database's tracked link; `clicked_at` is an ISO timestamp from the clock. */
export type DatabaseLinkClicked = DomainEvent<'DatabaseLinkClicked', { handle: string; clicked_at: string }>;

export const libraryStream = () => 'directory-library';
export const tokenStream = (id: number) => `directory-token-${id}`;
export const subjectStream = (handle: string) => `directory-subject-${handle}`;
export const typeStream = (handle: string) => `directory-type-${handle}`;
export const databaseStream = (handle: string) => `directory-database-${handle}`;
/** The events that make a database's version, which If-Match names: all its stream holds, as its read model folds them. */
export const DATABASE_VERSIONED: ReadonlySet<string> = new Set(['DatabaseAdded', 'DatabaseUpdated']);
export const listStream = (handle: string) => `directory-list-${handle}`;
/** Clicks have no rule to check, so they go to one stream per database, appended without a read. */
export const clickStream = (handle: string) => `directory-clicks-${handle}`;

export const TOKEN_SEQUENCE = 'directory_token';
