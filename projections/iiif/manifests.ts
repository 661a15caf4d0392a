import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ItemFields, MediaFields } from '../../commands/platform/fields.js';
import { isImageFile, type MediaFileEvent } from '../../commands/platform/media-files.js';
import type { ResourceCreated, ResourceDeleted, ResourceUpdated } from '../../commands/platform/resource-decider.js';
import {
  manifestDocs,
  manifestMedia,
  type CanvasEntry,
  type ManifestDoc,
  type ManifestMediaDoc,
} from '../../queries/iiif/documents.js';
import { defineHandlerProjection, type Projected } from '../projection.js';

/**
 * The IIIF Presentation read model: each item's manifest as the log leaves it (its fields and
 * its image media as canvases, with their upright sizes recorded at ingest), so the manifest
 * route reads one document however many canvases it has. A media's file events do not name its
 * item: the media's own document here does.
 */
type ManifestEvent =
  | ResourceCreated<ItemFields, 'Item'>
  | ResourceUpdated<ItemFields, 'Item'>
  | ResourceDeleted<'Item'>
  | ResourceCreated<MediaFields, 'Media'>
  | ResourceUpdated<MediaFields, 'Media'>
  | ResourceDeleted<'Media'>
  | MediaFileEvent;

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

async function placeCanvas(documents: DocumentStore, itemId: number, mediaId: number, canvas: CanvasEntry | null) {
  const doc = await manifestDocs(documents).findOne({ _id: itemId });
  if (doc) await manifestDocs(documents).put(withCanvas(doc, mediaId, canvas));
}

/** Writes the media's document and moves its canvas to where it now belongs. */
async function mediaChanged(documents: DocumentStore, before: ManifestMediaDoc | null, after: ManifestMediaDoc | null) {
  if (after) await manifestMedia(documents).put(after);
  else if (before) await manifestMedia(documents).deleteOne({ _id: before._id });
  const id = (after ?? before)?._id;
  if (id === undefined) return;
  if (before && before.item_id !== after?.item_id && before.canvas)
    await placeCanvas(documents, before.item_id, id, null);
  if (after && (after.canvas || before?.canvas)) await placeCanvas(documents, after.item_id, id, after.canvas);
}

async function itemWritten(documents: DocumentStore, id: number, fields: ItemFields) {
  const previous = await manifestDocs(documents).findOne({ _id: id });
  await manifestDocs(documents).put({
    _id: id,
    title: fields.title,
    description: fields.description,
    is_public: fields.is_public,
    item_set_ids: fields.item_set_ids,
    rights: fields.rights ?? null,
    canvases: previous?.canvases ?? [],
    public_canvases: previous?.public_canvases ?? 0,
    revision: (previous?.revision ?? 0) + 1,
  });
}

async function mediaWritten(documents: DocumentStore, id: number, fields: MediaFields) {
  const before = await manifestMedia(documents).findOne({ _id: id });
  const canvas = before?.canvas ? { ...before.canvas, title: fields.title, is_public: fields.is_public } : null;
  await mediaChanged(documents, before, {
    _id: id,
    item_id: fields.item_id,
    title: fields.title,
    is_public: fields.is_public,
    canvas,
  });
}

/** A file event: the media's canvas as it now is (null: not an image, or one that cannot be decoded). */
async function fileChanged(
  documents: DocumentStore,
  id: number,
  canvasOf: (media: ManifestMediaDoc) => CanvasEntry | null,
) {
  const before = await manifestMedia(documents).findOne({ _id: id });
  if (before) await mediaChanged(documents, before, { ...before, canvas: canvasOf(before) });
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
  ],
  async handle(event: Projected<ManifestEvent>, documents) {
    switch (event.type) {
      case 'ItemCreated':
      case 'ItemUpdated':
        return itemWritten(documents, event.data.id, event.data.fields);
      case 'ItemDeleted':
        await manifestDocs(documents).deleteOne({ _id: event.data.id });
        return;
      case 'MediaCreated':
      case 'MediaUpdated':
        return mediaWritten(documents, event.data.id, event.data.fields);
      case 'MediaDeleted':
        return mediaChanged(documents, await manifestMedia(documents).findOne({ _id: event.data.id }), null);
      case 'MediaFileIngested': {
        const file = event.data.file;
        return fileChanged(documents, event.data.id, (media) =>
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
        return fileChanged(documents, event.data.id, (media) =>
          media.canvas ? { ...media.canvas, thumbnails: true } : null,
        );
      case 'MediaDerivativesFailed':
        return fileChanged(documents, event.data.id, () => null);
      default: {
        const _exhaustive: never = event;
        return;
      }
    }
  },
});
