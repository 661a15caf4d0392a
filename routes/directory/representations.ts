import type { DatabaseDoc } from '../../contracts/directory/documents.js';
import { DatabaseFields, type LibrarySettings } from '../../contracts/directory/fields.js';
import { knownFields } from '../../infra/schema/record-fields.js';
import type { DatabaseView } from '../../queries/directory/databases.js';
import type { DatabaseAdminRecord, DatabaseRecord, LibrarySettingsRecord } from './schemas.js';
import { detailsUrl, openUrl } from './urls.js';

/*
 * The directory's records as its answers show them: each returns the Static type of the response
 * schema its routes answer with (schemas.ts), so a key the schema declares and is not produced
 * fails tsc (test/types/directory-replies.test.ts).
 */

/** A database as the API shows patrons (api-v1.ts): its links go through this server. */
export function databaseRecord(baseUrl: string, db: DatabaseView): DatabaseRecord {
  return { ...db, links: { open: openUrl(baseUrl, db.handle), details: detailsUrl(baseUrl, db.handle) } };
}

/** A database as an admin changes it (admin.ts): its handle and every field. */
export function databaseAdminRecord(doc: DatabaseDoc): DatabaseAdminRecord {
  return { handle: doc.handle, ...knownFields(DatabaseFields, doc) };
}

/** The library's settings as the admin routes show them. */
export function librarySettingsRecord(settings: LibrarySettings): LibrarySettingsRecord {
  return {
    name: settings.name,
    plan: settings.plan,
    brand_color: settings.brand_color,
    proxy_prefix: settings.proxy_prefix,
  };
}
