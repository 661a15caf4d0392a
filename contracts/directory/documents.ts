import type { DocumentStore } from '../../infra/document-store/port.js';
import type { DatabaseFields, LibrarySettings, ListFields, TermFields, TokenFields } from './fields.js';

/*
 * The directory's read models: each document and its collection, as the projections
 * (projections/directory/) write them and the queries (queries/directory/) and commands read them.
 */

/** The directory's read-model collections by name. */
export const DIRECTORY_COLLECTIONS = {
  library: 'directory_library',
  tokens: 'directory_tokens',
  subjects: 'directory_subjects',
  types: 'directory_types',
  databases: 'directory_databases',
  lists: 'directory_lists',
  clicks: 'directory_clicks',
} as const;

export const LIBRARY_DOC_ID = 'library';

export type LibraryDoc = LibrarySettings & { _id: string; [key: string]: unknown };

export const libraryDocs = (d: DocumentStore) => d.collection<LibraryDoc>(DIRECTORY_COLLECTIONS.library);

export interface TokenDoc extends TokenFields {
  _id: number;
  id: number;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
  [key: string]: unknown;
}

/** A token is looked up by its hash (the SQLite store indexes it). */
const TOKEN_INDEXES = { indexes: [['token_hash', 'revoked_at']] } as const;

export const tokenDocs = (d: DocumentStore) => d.collection<TokenDoc>(DIRECTORY_COLLECTIONS.tokens, TOKEN_INDEXES);

export interface TermDoc extends TermFields {
  _id: string;
  [key: string]: unknown;
}

export const subjectDocs = (d: DocumentStore) => d.collection<TermDoc>(DIRECTORY_COLLECTIONS.subjects);
export const typeDocs = (d: DocumentStore) => d.collection<TermDoc>(DIRECTORY_COLLECTIONS.types);

export type DatabaseDoc = DatabaseFields & {
  _id: string;
  handle: string;
  /** Lower-cased name: the sort key (name A to Z, case-insensitive). */
  sort_name: string;
  /** The stream version of its last event folded in: its ETag's (app/conditional). */
  version?: number;
  [key: string]: unknown;
};

export const databaseDocs = (d: DocumentStore) => d.collection<DatabaseDoc>(DIRECTORY_COLLECTIONS.databases);

export interface ListDoc extends ListFields {
  _id: string;
  [key: string]: unknown;
}

export const listDocs = (d: DocumentStore) => d.collection<ListDoc>(DIRECTORY_COLLECTIONS.lists);

/** Clicks on one database on one UTC day. */
export interface ClickCountDoc {
  _id: string;
  handle: string;
  date: string;
  count: number;
  /** Position of the last click counted, so a redelivered event is not counted twice. */
  last_position: number;
  [key: string]: unknown;
}

/** Clicks are read by day (the SQLite store indexes it). */
const CLICK_INDEXES = { indexes: ['date'] } as const;

export const clickDocs = (d: DocumentStore) => d.collection<ClickCountDoc>(DIRECTORY_COLLECTIONS.clicks, CLICK_INDEXES);

export const clickDocId = (handle: string, date: string) => `${handle}|${date}`;
