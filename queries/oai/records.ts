import type { DocumentStore, Filter } from '../../infra/document-store/port.js';
import { oaiRecords, oaiVersions, type OaiRecordDoc, type OaiRecordFields } from '../../contracts/oai/documents.js';

/**
 * A harvest as OAI-PMH lists it: the records as they stood at `snapshot` (a log position the
 * harvest began at: the versions current then, whether current still or superseded since), in
 * the order of the changes that made them, after `after`; `from`/`until` on their datestamps
 * (inclusive), `set` an item set they were in.
 */
export interface HarvestQuery {
  snapshot: number;
  after: number;
  from: string | null;
  until: string | null;
  set: number | null;
}

function filterOf(query: HarvestQuery): Filter {
  return {
    seq: { $gt: query.after, $lte: query.snapshot },
    ...(query.from !== null || query.until !== null
      ? {
          datestamp: {
            ...(query.from !== null ? { $gte: query.from } : {}),
            ...(query.until !== null ? { $lte: query.until } : {}),
          },
        }
      : {}),
    ...(query.set !== null ? { set_ids: query.set } : {}),
  };
}

/** Up to `limit` records of the harvest, in order. */
export async function harvestPage(
  documents: DocumentStore,
  query: HarvestQuery,
  limit: number,
): Promise<OaiRecordFields[]> {
  const filter = filterOf(query);
  const [current, superseded] = await Promise.all([
    oaiRecords(documents).find(filter, { sort: { seq: 1 }, limit }),
    oaiVersions(documents).find({ ...filter, superseded: { $gt: query.snapshot } }, { sort: { seq: 1 }, limit }),
  ]);
  return [...current, ...superseded].sort((a, b) => a.seq - b.seq).slice(0, limit);
}

/** How many records the whole harvest has (completeListSize). */
export async function harvestSize(documents: DocumentStore, query: HarvestQuery): Promise<number> {
  const filter = filterOf(query);
  const [current, superseded] = await Promise.all([
    oaiRecords(documents).count(filter),
    oaiVersions(documents).count({ ...filter, superseded: { $gt: query.snapshot } }),
  ]);
  return current + superseded;
}

/** An item's current record; null when the item was never public. */
export function findOaiRecord(documents: DocumentStore, itemId: number): Promise<OaiRecordDoc | null> {
  return oaiRecords(documents).findOne({ _id: itemId });
}
