import type { DocumentStore } from '../../infra/document-store/port.js';
import type { AppConfig } from '../../infra/config.js';
import { findLibrary } from '../directory/library.js';
import { itemSets, type ItemSetDoc } from '../../contracts/platform/documents.js';
import { manifestDocs, type CanvasEntry, type ManifestDoc } from '../../contracts/iiif/documents.js';

/**
 * What the IIIF Presentation routes read: a manifest's document with the canvases and item sets
 * the caller may see, a set's manifests, the sets. Editor and above see everything; anyone else
 * a public item's public image media, in public sets (CONTRACT.md section 9).
 */

export interface SetRef {
  id: number;
  title: string;
}

export interface VisibleManifest {
  doc: ManifestDoc;
  canvases: CanvasEntry[];
  sets: SetRef[];
  /** What the answer depends on besides the document: its ETag. */
  revision: string;
}

function setsVisible(sets: ItemSetDoc[], seesAll: boolean): ItemSetDoc[] {
  return seesAll ? sets : sets.filter((set) => set.is_public);
}

/** The item's sets the caller may see, by id, with the versions the ETag names. */
async function visibleSetVersions(documents: DocumentStore, setIds: number[], seesAll: boolean) {
  const found = setIds.length ? await itemSets(documents).find({ _id: { $in: setIds } }) : [];
  return setsVisible(found, seesAll)
    .sort((a, b) => a.id - b.id)
    .map((set) => ({ id: set.id, title: set.title, version: set.version ?? 0 }));
}

function revisionOf(docRevision: number, seesAll: boolean, sets: { id: number; version: number }[]): string {
  return [docRevision, seesAll ? 'all' : 'public', ...sets.map((set) => `${set.id}.${set.version}`)].join('-');
}

/** The item's manifest as the caller may see it; null when it has no canvas they may see (404). */
export async function visibleManifest(
  documents: DocumentStore,
  itemId: number,
  seesAll: boolean,
): Promise<VisibleManifest | null> {
  const doc = await manifestDocs(documents).findOne({ _id: itemId });
  if (!doc || (!seesAll && !doc.is_public)) return null;
  const canvases = seesAll ? doc.canvases : doc.canvases.filter((canvas) => canvas.is_public);
  if (canvases.length === 0) return null;
  const sets = await visibleSetVersions(documents, doc.item_set_ids, seesAll);
  return {
    doc,
    canvases,
    sets: sets.map(({ id, title }) => ({ id, title })),
    revision: revisionOf(doc.revision, seesAll, sets),
  };
}

const HEAD_FIELDS = ['revision', 'is_public', 'public_canvases', 'item_set_ids'] as const;

/**
 * What the caller's manifest of the item is made from (its ETag), as visibleManifest would say,
 * read without the canvases for an anonymous caller, so a 304 costs the same whatever their
 * number; null when the caller has no manifest (404).
 */
export async function manifestRevision(
  documents: DocumentStore,
  itemId: number,
  seesAll: boolean,
): Promise<string | null> {
  if (seesAll) return (await visibleManifest(documents, itemId, true))?.revision ?? null;
  const [head] = await manifestDocs(documents).find({ _id: itemId }, { fields: HEAD_FIELDS, limit: 1 });
  if (!head || !head.is_public || head.public_canvases === 0) return null;
  return revisionOf(head.revision, false, await visibleSetVersions(documents, head.item_set_ids, false));
}

/** An item set the caller may see, with the items that have a manifest they may see. */
export async function visibleSetCollection(
  documents: DocumentStore,
  setId: number,
  seesAll: boolean,
): Promise<{ set: SetRef; manifests: SetRef[] } | null> {
  const set = await itemSets(documents).findOne({ _id: setId });
  if (!set || (!seesAll && !set.is_public)) return null;
  // Anonymous callers' manifests are known by their counts: their canvases are not read.
  const manifests = seesAll
    ? (await manifestDocs(documents).find({ item_set_ids: setId }, { sort: { _id: 1 }, fields: ['title', 'canvases'] }))
        .filter((doc) => doc.canvases.length > 0)
        .map((doc) => ({ id: doc._id, title: doc.title }))
    : (
        await manifestDocs(documents).find(
          { item_set_ids: setId, is_public: true, public_canvases: { $gt: 0 } },
          { sort: { _id: 1 }, fields: ['title'] },
        )
      ).map((doc) => ({ id: doc._id, title: doc.title }));
  return { set: { id: set.id, title: set.title }, manifests };
}

/** Every item set the caller may see, by id. */
export async function visibleSets(documents: DocumentStore, seesAll: boolean): Promise<SetRef[]> {
  const sets = await itemSets(documents).find(seesAll ? {} : { is_public: true }, { sort: { _id: 1 } });
  return sets.map((set) => ({ id: set.id, title: set.title }));
}

/** Who publishes the collection: COLLECTION_NAME, else the directory library's name, else "Collections". */
export async function collectionName(documents: DocumentStore, config: AppConfig): Promise<string> {
  return config.collectionName ?? (await findLibrary(documents))?.name ?? 'Collections';
}
