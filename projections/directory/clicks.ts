import type { DatabaseLinkClicked } from '../../commands/directory/events.js';
import { clickDocId, clickDocs } from '../../queries/directory/documents.js';
import { defineProjection } from '../projection.js';

/**
 * Click counts per database and UTC day. A count is an increment, so each document remembers
 * the position of the last click it counted and skips anything at or before it: a redelivered
 * event changes nothing. (One stream per database keeps a database's clicks in order.)
 */
export const clickCountsProjection = defineProjection({
  name: 'directory-click-counts',
  handles: ['DatabaseLinkClicked'],
  async apply(stored, documents) {
    const { handle, clicked_at } = (stored as unknown as DatabaseLinkClicked).data;
    const date = clicked_at.slice(0, 10);
    const clicks = clickDocs(documents);
    const id = clickDocId(handle, date);
    const current = await clicks.findOne({ _id: id });
    if (current && current.last_position >= stored.position) return;
    await clicks.put({ _id: id, handle, date, count: (current?.count ?? 0) + 1, last_position: stored.position });
  },
});
