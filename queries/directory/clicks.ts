import type { DocumentStore, Filter } from '../../infra/document-store/port.js';
import { clickDocs } from '../../contracts/directory/documents.js';

export interface ClickCount {
  handle: string;
  /** UTC day, YYYY-MM-DD. */
  date: string;
  count: number;
}

/** Click counts per database and day, oldest day first, within the inclusive [from, to] days. */
export async function clickCounts(
  documents: DocumentStore,
  range: { from?: string; to?: string; handle?: string },
): Promise<ClickCount[]> {
  const date: Record<string, string> = {};
  if (range.from) date.$gte = range.from;
  if (range.to) date.$lte = range.to;
  const filter: Filter = {};
  if (Object.keys(date).length) filter.date = date;
  if (range.handle) filter.handle = range.handle;
  const docs = await clickDocs(documents).find(filter, { sort: { date: 1, handle: 1 } });
  return docs.map((d) => ({ handle: d.handle, date: d.date, count: d.count }));
}
