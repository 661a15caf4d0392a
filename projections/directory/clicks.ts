import type { DatabaseLinkClicked } from '../../contracts/directory/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { defineProjection, type Projected } from '../projection.js';
import { DIRECTORY_COLLECTIONS } from './collections.js';

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
