import type { DocumentStore } from '../../infra/document-store/port.js';
import { activityCount, activityDocs, type ActivityDoc } from '../../contracts/iiif/documents.js';

/** IIIF Change Discovery's activities come in pages of this many, oldest first, the newest page last. */
export const ACTIVITIES_PER_PAGE = 100;

/** How many activities the log has made. */
export async function activityTotal(documents: DocumentStore): Promise<number> {
  return (await activityCount(documents).findOne({ _id: 'activities' }))?.count ?? 0;
}

/** The activities of page `page` (0 first), in log order. */
export function activityPage(documents: DocumentStore, page: number): Promise<ActivityDoc[]> {
  const first = page * ACTIVITIES_PER_PAGE;
  return activityDocs(documents).find({ _id: { $gt: first, $lte: first + ACTIVITIES_PER_PAGE } }, { sort: { _id: 1 } });
}
