import { DATABASE_VERSIONED, type DatabaseAdded, type DatabaseUpdated } from '../../commands/directory/events.js';
import { databaseDocs } from '../../queries/directory/documents.js';
import { defineProjection } from '../projection.js';

/** Databases by handle, hidden ones included (queries leave them out), rewritten whole by each event. */
export const databasesProjection = defineProjection({
  name: 'directory-databases',
  handles: [...DATABASE_VERSIONED],
  async apply(stored, documents) {
    const { handle, fields } = (stored as unknown as DatabaseAdded | DatabaseUpdated).data;
    await databaseDocs(documents).put({ ...fields, _id: handle, handle, sort_name: fields.name.toLowerCase(), version: stored.streamVersion });
  },
});
