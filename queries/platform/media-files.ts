import type { DocumentStore } from '../../infra/document-store/port.js';
import { items, mediaDocs, type MediaDoc } from './documents.js';

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

/** How many media images could not be decoded (/health). */
export function undecodableImages(documents: DocumentStore): Promise<number> {
  return mediaDocs(documents).count({ file_status: 'failed' });
}
