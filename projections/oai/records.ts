import type { DocumentStore } from '../../infra/document-store/port.js';
import { oaiRecords, oaiVersions, type OaiContent, type OaiRecordDoc } from '../../contracts/oai/documents.js';

/**
 * Folds an item's change into its OAI-PMH record. A record exists once the item has been public:
 * each change of what harvesters see (its oai_dc content, or its becoming private or deleted: a
 * deleted record, kept for ever, `deletedRecord` persistent) is a new version with the change's
 * datestamp and log position; the version it replaces is kept, so a harvest begun before the
 * change still reads it. An item never public has no record at all, not even a deleted one. A set
 * made public or private gives each of its records a new version (oaiSetVisibilityChanged).
 */

/** `YYYY-MM-DDThh:mm:ssZ`: OAI-PMH's seconds granularity. */
export function datestampOf(iso: string): string {
  return `${iso.slice(0, 19)}Z`;
}

export async function oaiRecordChanged(
  documents: DocumentStore,
  itemId: number,
  content: OaiContent | null,
  change: { position: number; at: string },
): Promise<void> {
  const records = oaiRecords(documents);
  const current = await records.findOne({ _id: itemId });
  if (!current && content === null) return;
  if (current && JSON.stringify(current.content) === JSON.stringify(content)) return;
  await supersede(documents, itemId, current, content, change);
}

/**
 * An item set became public or stopped being so (or went): the records in it change their
 * `setSpec` for harvesters, so each gets a new version with this change's datestamp, and an
 * incremental harvest (`from`) brings their headers again.
 */
export async function oaiSetVisibilityChanged(
  documents: DocumentStore,
  setId: number,
  change: { position: number; at: string },
): Promise<void> {
  for (const record of await oaiRecords(documents).find({ set_ids: setId }, { sort: { _id: 1 } }))
    await supersede(documents, record.item_id, record, record.content, change);
}

/** Keeps `current` as a superseded version and writes `content` as the record's new one. */
async function supersede(
  documents: DocumentStore,
  itemId: number,
  current: OaiRecordDoc | null,
  content: OaiContent | null,
  change: { position: number; at: string },
): Promise<void> {
  const records = oaiRecords(documents);
  if (current && current.seq >= change.position) return;
  if (current) {
    const { _id: _current, ...fields } = current;
    await oaiVersions(documents).put({ ...fields, _id: `${itemId}:${current.seq}`, superseded: change.position });
  }
  await records.put({
    _id: itemId,
    item_id: itemId,
    seq: change.position,
    datestamp: datestampOf(change.at),
    deleted: content === null,
    set_ids: content?.item_set_ids ?? current?.set_ids ?? [],
    content,
  });
}
