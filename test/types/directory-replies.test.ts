import t from 'tap';
import type { Static, TObject } from '@sinclair/typebox';
import { databaseAdminRecord, databaseRecord, librarySettingsRecord } from '../../routes/directory/representations.js';
import {
  DatabaseAdminRecord,
  DatabaseRecord,
  LibrarySettingsRecord,
  TokenSummary,
} from '../../routes/directory/schemas.js';
import { summarizeToken } from '../../queries/directory/tokens.js';
import type { DatabaseDoc, TokenDoc } from '../../contracts/directory/documents.js';
import { UNCONFIGURED_LIBRARY } from '../../contracts/directory/fields.js';
import type { DatabaseView } from '../../queries/directory/databases.js';

/*
 * Replies are typed (issue 49): the directory's records return the Static type of the response
 * schema their routes answer with, so a key the schema declares and is not produced fails `tsc`
 * (which checks test/ too: each @ts-expect-error below is itself an error the day the mistake it
 * marks compiles). The directory's answers are serialised by their schemas, which drop a key they
 * do not declare: the runtime tests check that none is produced either.
 */

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const exact: [
  Same<ReturnType<typeof databaseRecord>, Static<typeof DatabaseRecord>>,
  Same<ReturnType<typeof databaseAdminRecord>, Static<typeof DatabaseAdminRecord>>,
  Same<ReturnType<typeof librarySettingsRecord>, Static<typeof LibrarySettingsRecord>>,
] = [true, true, true];

const BASE = 'http://test.local';
const view: DatabaseView = {
  handle: 'jstor',
  name: 'JSTOR',
  description: 'Journals.',
  subjects: [{ handle: 'history', name: 'History' }],
  types: [],
  access: 'subscription',
  audience: ['graduate'],
  featured: true,
};

/** A response schema with one field more: the database's record does not produce it. */
type WithCoverage = DatabaseRecord & { coverage: string };
export function databaseWithCoverage(): WithCoverage {
  // @ts-expect-error 'coverage' is declared and not produced.
  return databaseRecord(BASE, view);
}

/** A record built by hand is checked key by key. */
export function databaseMissingItsLinks(): DatabaseRecord {
  // @ts-expect-error 'links' is declared and not produced.
  return { ...view };
}
export function libraryWithAnUndeclaredKey(): LibrarySettingsRecord {
  return {
    ...UNCONFIGURED_LIBRARY,
    // @ts-expect-error 'logo' is produced and not declared.
    logo: 'logo.png',
  };
}

const keys = (value: object) => Object.keys(value).sort();
const schemaKeys = (schema: TObject) => keys(schema.properties);

t.test('the directory records are typed by their response schemas (checked by tsc)', async (t) => {
  t.same(exact, [true, true, true], 'the real check is tsc, which compiles this file');
});

t.test('each directory record produces the keys of its response schema, and no other', async (t) => {
  const doc: DatabaseDoc = {
    _id: 'jstor',
    handle: 'jstor',
    sort_name: 'jstor',
    version: 1,
    name: 'JSTOR',
    description: '',
    url: 'https://www.jstor.org/',
    subjects: [],
    types: [],
    access: 'open',
    audience: [],
    featured: false,
    hidden: false,
    proxied: false,
  };
  const token: TokenDoc = {
    _id: 1,
    id: 1,
    token_hash: 'f'.repeat(64),
    allowed_origins: [],
    label: 'site',
    created_at: '2026-01-02T03:04:05.000Z',
    revoked_at: null,
  };
  const record = databaseRecord(BASE, view);
  t.same(keys(record), schemaKeys(DatabaseRecord), 'database');
  t.same(keys(record.links), schemaKeys(DatabaseRecord.properties.links), 'its links');
  t.same(keys(databaseAdminRecord(doc)), schemaKeys(DatabaseAdminRecord), 'database for an admin');
  t.same(keys(librarySettingsRecord(UNCONFIGURED_LIBRARY)), schemaKeys(LibrarySettingsRecord), 'library settings');
  t.same(keys(summarizeToken(token)), schemaKeys(TokenSummary), 'token');
});
