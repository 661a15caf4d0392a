import type { DatabaseAdded, DatabaseFields, DatabaseUpdated } from '../../contracts/directory/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { DIRECTORY_COLLECTIONS } from './collections.js';

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

/** Databases by handle, hidden ones included (queries leave them out), rewritten whole by each event. */
export const databasesProjection = defineProjection({
  name: 'directory-databases',
  handles: ['DatabaseAdded', 'DatabaseUpdated'],
  collection: databaseDocs,
  evolve(_document: DatabaseDoc | null, event: Projected<DatabaseAdded | DatabaseUpdated>): DatabaseDoc {
    const { handle, fields } = event.data;
    return copyWith(fields, {
      _id: handle,
      handle,
      sort_name: fields.name.toLowerCase(),
      version: event.streamVersion,
    });
  },
  documentId: (event) => event.data.handle,
});
