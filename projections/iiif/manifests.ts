import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ItemFields, ItemSetFields, MediaFields } from '../../contracts/platform/fields.js';
import { isImageFile, type MediaFileEvent } from '../../contracts/platform/media-files.js';
import type { ResourceCreated, ResourceDeleted, ResourceUpdated } from '../../contracts/platform/events.js';
import {
  activityCount,
  activityDocs,
  collectionSets,
  manifestDocs,
  manifestMedia,
  type ActivityChange,
  type CanvasEntry,
  type CollectionSetDoc,
  type ManifestDoc,
  type ManifestFields,
  type ManifestMediaDoc,
} from '../../contracts/iiif/documents.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { oaiRecordChanged, oaiSetVisibilityChanged } from '../oai/records.js';
import type { OaiContent } from '../../contracts/oai/documents.js';

/**
 * The IIIF read model: each item's manifest as the log leaves it (its fields and its image media
 * as canvases, with their upright sizes recorded at ingest), so the manifest route reads one
 * document however many canvases it has; the item sets as collections; and IIIF Change
 * Discovery's activities. A manifest's activity is a change of what an anonymous caller sees of
 * it: Create when it appears (a public item with a public image), Update when that changes,
 * Delete when it goes (deleted, made private, its last public image gone). Each item's OAI-PMH
 * record is folded beside its manifest (projections/oai/records.ts). A media's file events do not
 * name its item: the media's own document here does.
 */
type IiifEvent =
  | ResourceCreated<ItemFields, 'Item'>
  | ResourceUpdated<ItemFields, 'Item'>
  | ResourceDeleted<'Item'>
  | ResourceCreated<MediaFields, 'Media'>
  | ResourceUpdated<MediaFields, 'Media'>
  | ResourceDeleted<'Media'>
  | ResourceCreated<ItemSetFields, 'ItemSet'>
  | ResourceUpdated<ItemSetFields, 'ItemSet'>
  | ResourceDeleted<'ItemSet'>
  | MediaFileEvent;

/** The collection of every item set, as an activity's object. */
export const TOP_COLLECTION = 0;

type Change = ActivityChange;

/** One event's writes: its documents, and the activities it makes, recorded once. */
class Fold {
  readonly changes: Change[] = [];
  constructor(
    readonly documents: DocumentStore,
    readonly event: Projected<IiifEvent>,
  ) {}

  /** What an anonymous caller's manifest shows, as JSON; null when they have none. */
  private static publicView(doc: ManifestFields | null): string | null {
    if (!doc || !doc.is_public || doc.public_canvases === 0) return null;
    const { title, description, rights, item_set_ids } = doc;
    return JSON.stringify({
      title,
      description,
      rights,
      item_set_ids,
      canvases: doc.canvases.filter((c) => c.is_public),
    });
  }

  private static transition(before: string | null, after: string | null): Change['type'] | null {
    if (before === after) return null;
    if (before === null) return 'Create';
    return after === null ? 'Delete' : 'Update';
  }

  /** Writes the manifest (null: removes it) and notes the activity of a change of its public view. */
  async manifest(id: number, next: ManifestFields | null): Promise<void> {
    const docs = manifestDocs(this.documents);
    const before = await docs.findOne({ _id: id });
    const view = Fold.publicView(next);
    if (next) await docs.put({ ...next, public_view: view });
    else await docs.deleteOne({ _id: id });
    await oaiRecordChanged(this.documents, id, next?.is_public ? oaiContent(next) : null, {
      position: this.event.position,
      at: this.event.metadata.at,
    });
    const type = Fold.transition(before?.public_view ?? null, view);
    if (!type) return;
    this.changes.push({ type, object_type: 'Manifest', object_id: id });
    // A manifest that appears or goes changes the collections of its public sets.
    if (type !== 'Update') {
      for (const setId of new Set([...(before?.item_set_ids ?? []), ...(next?.item_set_ids ?? [])])) {
        const set = await collectionSets(this.documents).findOne({ _id: setId });
        if (set?.is_public) this.changes.push({ type: 'Update', object_type: 'Collection', object_id: setId });
      }
    }
  }

  /** Writes the item set (null: removes it) and notes its collection's activity and the top collection's. */
  async set(id: number, next: CollectionSetDoc | null): Promise<void> {
    const sets = collectionSets(this.documents);
    const before = await sets.findOne({ _id: id });
    if (next) await sets.put(next);
    else await sets.deleteOne({ _id: id });
    if (Boolean(before?.is_public) !== Boolean(next?.is_public))
      await oaiSetVisibilityChanged(this.documents, id, {
        position: this.event.position,
        at: this.event.metadata.at,
      });
    const view = (doc: CollectionSetDoc | null) => (doc?.is_public ? doc.title : null);
    const type = Fold.transition(view(before), view(next));
    if (!type) return;
    this.changes.push({ type, object_type: 'Collection', object_id: id });
    this.changes.push({ type: 'Update', object_type: 'Collection', object_id: TOP_COLLECTION });
  }

  /** Records the activities noted, numbered on from the last, unless this event recorded them already. */
  async record(): Promise<void> {
    const event = this.event;
    if (this.changes.length === 0) return;
    const counts = activityCount(this.documents);
    const count = (await counts.findOne({ _id: 'activities' })) ?? {
      _id: 'activities' as const,
      count: 0,
      position: 0,
    };
    if (event.position <= count.position) return;
    const unique = [...new Map(this.changes.map((c) => [`${c.type} ${c.object_type} ${c.object_id}`, c])).values()];
    for (const [i, change] of unique.entries())
      await activityDocs(this.documents).put({ _id: count.count + i + 1, ...change, end_time: event.metadata.at });
    await counts.put({ _id: 'activities', count: count.count + unique.length, position: event.position });
  }
}

/** What the item's OAI-PMH record says (projections/oai/records.ts). */
function oaiContent(fields: ManifestFields): OaiContent {
  return {
    title: fields.title,
    description: fields.description,
    rights: fields.rights,
    item_set_ids: fields.item_set_ids,
    has_image: fields.public_canvases > 0,
    created: fields.created,
  };
}

/** The item's manifest with `canvas` (of media `mediaId`) put in, replaced or (null) taken out. */
function withCanvas(doc: ManifestDoc, mediaId: number, canvas: CanvasEntry | null): ManifestDoc {
  const others = doc.canvases.filter((entry) => entry.media_id !== mediaId);
  const canvases = canvas ? [...others, canvas].sort((a, b) => a.media_id - b.media_id) : others;
  return {
    ...doc,
    canvases,
    public_canvases: canvases.filter((entry) => entry.is_public).length,
    revision: doc.revision + 1,
  };
}

async function placeCanvas(fold: Fold, itemId: number, mediaId: number, canvas: CanvasEntry | null) {
  const doc = await manifestDocs(fold.documents).findOne({ _id: itemId });
  if (doc) await fold.manifest(itemId, withCanvas(doc, mediaId, canvas));
}

/** Writes the media's document and moves its canvas to where it now belongs. */
async function mediaChanged(fold: Fold, before: ManifestMediaDoc | null, after: ManifestMediaDoc | null) {
  const media = manifestMedia(fold.documents);
  if (after) await media.put(after);
  else if (before) await media.deleteOne({ _id: before._id });
  const id = (after ?? before)?._id;
  if (id === undefined) return;
  if (before && before.item_id !== after?.item_id && before.canvas) await placeCanvas(fold, before.item_id, id, null);
  if (after && (after.canvas || before?.canvas)) await placeCanvas(fold, after.item_id, id, after.canvas);
}

async function itemWritten(fold: Fold, id: number, fields: ItemFields) {
  const previous = await manifestDocs(fold.documents).findOne({ _id: id });
  await fold.manifest(id, {
    _id: id,
    title: fields.title,
    description: fields.description,
    is_public: fields.is_public,
    item_set_ids: fields.item_set_ids,
    rights: fields.rights,
    canvases: previous?.canvases ?? [],
    public_canvases: previous?.public_canvases ?? 0,
    revision: (previous?.revision ?? 0) + 1,
    created: previous?.created ?? fold.event.metadata.at,
  });
}

async function mediaWritten(fold: Fold, id: number, fields: MediaFields) {
  const before = await manifestMedia(fold.documents).findOne({ _id: id });
  const canvas = before?.canvas ? { ...before.canvas, title: fields.title, is_public: fields.is_public } : null;
  await mediaChanged(fold, before, {
    _id: id,
    item_id: fields.item_id,
    title: fields.title,
    is_public: fields.is_public,
    canvas,
  });
}

/** A file event: the media's canvas as it now is (null: not an image, or one that cannot be decoded). */
async function fileChanged(fold: Fold, id: number, canvasOf: (media: ManifestMediaDoc) => CanvasEntry | null) {
  const before = await manifestMedia(fold.documents).findOne({ _id: id });
  if (before) await mediaChanged(fold, before, { ...before, canvas: canvasOf(before) });
}

async function apply(fold: Fold, event: Projected<IiifEvent>): Promise<void> {
  switch (event.type) {
    case 'ItemCreated':
    case 'ItemUpdated':
      return itemWritten(fold, event.data.id, event.data.fields);
    case 'ItemDeleted':
      return fold.manifest(event.data.id, null);
    case 'MediaCreated':
    case 'MediaUpdated':
      return mediaWritten(fold, event.data.id, event.data.fields);
    case 'MediaDeleted':
      return mediaChanged(fold, await manifestMedia(fold.documents).findOne({ _id: event.data.id }), null);
    case 'MediaFileIngested': {
      const file = event.data.file;
      return fileChanged(fold, event.data.id, (media) =>
        isImageFile(file)
          ? {
              media_id: media._id,
              title: media.title,
              is_public: media.is_public,
              width: file.pixels.width,
              height: file.pixels.height,
              thumbnails: false,
            }
          : null,
      );
    }
    case 'MediaDerivativesMade':
      return fileChanged(fold, event.data.id, (media) => (media.canvas ? { ...media.canvas, thumbnails: true } : null));
    case 'MediaDerivativesFailed':
      return fileChanged(fold, event.data.id, () => null);
    case 'ItemSetCreated':
    case 'ItemSetUpdated':
      return fold.set(event.data.id, {
        _id: event.data.id,
        title: event.data.fields.title,
        is_public: event.data.fields.is_public,
      });
    case 'ItemSetDeleted':
      return fold.set(event.data.id, null);
    default: {
      const _exhaustive: never = event;
      return;
    }
  }
}

export const manifestsProjection = defineHandlerProjection({
  name: 'iiif-manifests',
  handles: [
    'ItemCreated',
    'ItemUpdated',
    'ItemDeleted',
    'MediaCreated',
    'MediaUpdated',
    'MediaDeleted',
    'MediaFileIngested',
    'MediaDerivativesMade',
    'MediaDerivativesFailed',
    'ItemSetCreated',
    'ItemSetUpdated',
    'ItemSetDeleted',
  ],
  async handle(event: Projected<IiifEvent>, documents) {
    const fold = new Fold(documents, event);
    await apply(fold, event);
    await fold.record();
  },
});
