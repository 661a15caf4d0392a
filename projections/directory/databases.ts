import type { DatabaseAdded, DatabaseUpdated } from '../../contracts/directory/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { databaseDocs, type DatabaseDoc } from '../../contracts/directory/documents.js';

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
