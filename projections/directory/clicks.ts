import type { DatabaseLinkClicked } from '../../contracts/directory/events.js';
import { defineProjection, type Projected } from '../projection.js';
import { clickDocId, clickDocs, type ClickCountDoc } from '../../contracts/directory/documents.js';

/**
 * Click counts per database and UTC day. A count is an increment, so each document remembers
 * the position of the last click it counted and skips anything at or before it: a redelivered
 * event changes nothing. (One stream per database keeps a database's clicks in order.)
 */
export const clickCountsProjection = defineProjection({
  name: 'directory-click-counts',
  handles: ['DatabaseLinkClicked'],
  collection: clickDocs,
  evolve(current: ClickCountDoc | null, event: Projected<DatabaseLinkClicked>): ClickCountDoc | null {
    if (current && current.last_position >= event.position) return current;
    const { handle, clicked_at } = event.data;
    const date = clicked_at.slice(0, 10);
    return {
      _id: clickDocId(handle, date),
      handle,
      date,
      count: (current?.count ?? 0) + 1,
      last_position: event.position,
    };
  },
  documentId: (event) => clickDocId(event.data.handle, event.data.clicked_at.slice(0, 10)),
});
