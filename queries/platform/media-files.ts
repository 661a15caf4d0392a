import type { DocumentStore } from '../../infra/document-store/port.js';
import { items, mediaDocs, type MediaDoc } from '../../contracts/platform/documents.js';

/** A media as the file and image routes serve it, with whether anyone may see it. */
export interface ServedMedia {
  media: MediaDoc;
  /** Public and of a public item: anonymous callers see it, so shared caches may keep its files. */
  isPublic: boolean;
}

/**
 * The media with `id` when the caller may see it (CONTRACT.md section 6): Editor and above see
 * every media; anyone else only a public media of a public item, as its record's route answers.
 * Null otherwise: its files and image service then answer 404, exactly as the record does.
 */
export async function servedMedia(documents: DocumentStore, id: number, seesAll: boolean): Promise<ServedMedia | null> {
  const media = await mediaDocs(documents).findOne({ _id: id });
  if (!media) return null;
  const item = media.is_public ? await items(documents).findOne({ _id: media.item_id }) : null;
  const isPublic = media.is_public && item?.is_public === true;
  return isPublic || seesAll ? { media, isPublic } : null;
}

/** The media whose image still waits for its derivatives (a start enqueues them again), by id. */
export async function mediaOwingDerivatives(documents: DocumentStore, afterId: number, limit: number) {
  return mediaDocs(documents).find(
    { file_status: 'pending', _id: { $gt: afterId } },
    { sort: { _id: 1 }, limit, fields: ['file'] },
  );
}

/** Media images still owed their derivatives, and those that could not be decoded (/health). */
export interface ImageCounts {
  derivatives_pending: number;
  undecodable: number;
}

export async function imageCounts(documents: DocumentStore): Promise<ImageCounts> {
  const [pending, failed] = await Promise.all([
    mediaDocs(documents).count({ file_status: 'pending' }),
    mediaDocs(documents).count({ file_status: 'failed' }),
  ]);
  return { derivatives_pending: pending, undecodable: failed };
}

/** A media whose file is an image, as `npm run derivatives` works through them. */
export interface MediaImage {
  id: number;
  sha256: string;
}

/**
 * The media with an image file (whatever their derivatives' state), in id order: all of them,
 * an item's, or those of an item set's items.
 */
export async function mediaWithImages(
  documents: DocumentStore,
  scope: { itemId?: number; itemSetId?: number },
): Promise<MediaImage[]> {
  const itemIds =
    scope.itemSetId !== undefined
      ? (await items(documents).find({ item_set_ids: scope.itemSetId }, { fields: ['id'] })).map((item) => item._id)
      : scope.itemId !== undefined
        ? [scope.itemId]
        : null;
  const filter = itemIds === null ? {} : { item_id: { $in: itemIds } };
  const docs = await mediaDocs(documents).find(filter, { sort: { _id: 1 }, fields: ['file', 'file_status'] });
  return docs.flatMap((doc) =>
    doc.file && doc.file_status !== undefined && doc.file_status !== 'none'
      ? [{ id: doc._id, sha256: doc.file.sha256 }]
      : [],
  );
}
