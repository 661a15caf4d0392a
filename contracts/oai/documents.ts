import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ItemFields } from '../platform/fields.js';

/**
 * The OAI-PMH read model (projections/oai/records.ts): per item ever public, its record as
 * harvesters see it, and the versions a change superseded, so a harvest reads the collection as
 * it stood when it began, however it changes meanwhile.
 */

/** What a public item's oai_dc record says: some of the item's fields (contracts/platform/fields.ts), and more. */
export interface OaiContent extends Pick<ItemFields, 'title' | 'description' | 'rights' | 'item_set_ids'> {
  /** It has a public image (dc:type Image). */
  has_image: boolean;
  /** When the item was created, ISO 8601 (dc:date). */
  created: string;
}

export interface OaiRecordFields {
  item_id: number;
  /** The log position of the change that made this version: harvests go in this order. */
  seq: number;
  /** That change's time, `YYYY-MM-DDThh:mm:ssZ`. */
  datestamp: string;
  /** Deleted or made private: a header with status="deleted", and no metadata. */
  deleted: boolean;
  /** Its item sets (OAI-PMH sets) when this version was made; a deleted record keeps its last ones. */
  set_ids: number[];
  content: OaiContent | null;
}

/** The current version of an item's record. */
export interface OaiRecordDoc extends OaiRecordFields {
  _id: number;
  [key: string]: unknown;
}

/** A version a later change superseded (at log position `superseded`). */
export interface OaiVersionDoc extends OaiRecordFields {
  _id: string;
  superseded: number;
  [key: string]: unknown;
}

const RECORD_INDEXES = { indexes: ['seq'], elementIndexes: ['set_ids'] } as const;
const VERSION_INDEXES = { indexes: ['seq'], elementIndexes: ['set_ids'] } as const;

export const oaiRecords = (d: DocumentStore) => d.collection<OaiRecordDoc>('oai_records', RECORD_INDEXES);
export const oaiVersions = (d: DocumentStore) => d.collection<OaiVersionDoc>('oai_record_versions', VERSION_INDEXES);
