import type { DomainEvent } from '../domain-event.js';
import type { DatabaseFields, LibrarySettings, ListFields, TermFields, TokenFields } from './fields.js';

/** The directory's events; the records' fields are declared in fields.ts. */
export type { DatabaseFields, LibrarySettings } from './fields.js';

export type LibraryConfigured = DomainEvent<'LibraryConfigured', LibrarySettings>;
export type DirectoryTokenIssued = DomainEvent<
  'DirectoryTokenIssued',
  { id: number; token_hash: string } & TokenFields
>;
export type DirectoryTokenRevoked = DomainEvent<'DirectoryTokenRevoked', { id: number }>;
export type SubjectDefined = DomainEvent<'SubjectDefined', TermFields>;
export type DatabaseTypeDefined = DomainEvent<'DatabaseTypeDefined', TermFields>;
export type DatabaseAdded = DomainEvent<'DatabaseAdded', { handle: string; fields: DatabaseFields }>;
export type DatabaseUpdated = DomainEvent<
  'DatabaseUpdated',
  { handle: string; fields: DatabaseFields; changed: string[] }
>;
export type LibraryListDefined = DomainEvent<'LibraryListDefined', ListFields>;
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
