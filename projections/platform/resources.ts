import type { DocumentStore } from '../../infra/document-store/port.js';
import {
  ITEM_EVENTS,
  ITEM_SET_EVENTS,
  MEDIA_EVENTS,
  SITE_EVENTS,
  SITE_PAGE_EVENTS,
  SITE_PAGE_REVERTED,
  versionedBy,
  type ResourceEventNames,
} from '../../contracts/platform/events.js';
import type {
  ItemFields,
  ItemSetFields,
  MediaFields,
  SiteFields,
  SitePageFields,
} from '../../contracts/platform/fields.js';
import {
  PLATFORM_COLLECTIONS,
  items,
  type FileStatus,
  type ItemFileEntry,
} from '../../contracts/platform/documents.js';
import {
  isImageFile,
  MEDIA_FILE_EVENTS,
  type MediaFile,
  type MediaFileEvent,
} from '../../contracts/platform/media-files.js';
import { IIIF_IMAGE_TYPES } from '../../infra/images/image-size.js';
import { type Projected, type ProjectedEventShape, type Projection } from '../projection.js';

/**
 * A kind's document as this projection writes it: the event's fields beside the keys it adds
 * (and those of `keep`, which other projections maintain).
 */
type TrackedDoc<F extends object> = Partial<F> & {
  _id: number;
  created_at?: string;
  owner_id?: number | null;
  [key: string]: unknown;
};

/** A resource kind's event, named by kind at run time (contracts/platform/events.ts); `F` is the kind's fields. */
interface ResourceEvent<F extends object> {
  type: string;
  data: { id: number; fields?: F };
}

/** An event of a record's stream that names the record. */
type AmendingEvent = ProjectedEventShape & { data: { id: number } };

/**
 * Events of a kind's streams that change some keys of its document without carrying its fields
 * (a media's file and derivatives): `keys` answers the keys to set on the document as it is.
 */
interface Amendments<F extends object, X extends AmendingEvent> {
  types: readonly X['type'][];
  keys(previous: TrackedDoc<F>, event: Projected<X>): Record<string, unknown>;
}

/**
 * Folds one resource kind's Created/Updated/Deleted events into its collection. Each event
 * carries the full fields, so the document is rewritten whole (idempotent on redelivery).
 * `keep` lists document keys that other projections maintain and a rewrite must preserve.
 * `updateLike` names further events that carry the full fields and rewrite the document like an
 * update (a site page's SitePageReverted); `amend`, events that set some of its keys.
 */
function resourceProjection<F extends object, X extends AmendingEvent = never>(
  name: string,
  collection: string,
  events: ResourceEventNames & { updateLike?: readonly string[] },
  keep: Record<string, unknown> = {},
  after?: (
    event: Projected<ResourceEvent<F> | X>,
    documents: DocumentStore,
    previous: TrackedDoc<F> | null,
  ) => Promise<void>,
  amend?: Amendments<F, X>,
): Projection<ResourceEvent<F> | X> {
  const amending = (event: Projected<ResourceEvent<F> | X>): event is Projected<X> =>
    amend?.types.includes(event.type) ?? false;
  // Several documents for a medium (its item's media_ids too), and a kind's own keys kept: the
  // escape hatch, written out (the event types are named at run time, so nothing checks `handles`).
  return {
    name,
    handles: [...versionedBy(events, ...(events.updateLike ?? []), ...(amend?.types ?? []))],
    async apply(event: Projected<ResourceEvent<F> | X>, documents) {
      const docs = documents.collection<TrackedDoc<F>>(collection);
      if (amending(event)) {
        const previous = await docs.findOne({ _id: event.data.id });
        // The stream's own MediaCreated came first, so a missing document is one deleted since.
        if (previous && amend) {
          await docs.put({ ...previous, ...amend.keys(previous, event), version: event.streamVersion });
          await after?.(event, documents, previous);
        }
        return;
      }
      const data = event.data;
      const previous = await docs.findOne({ _id: data.id });
      if (event.type === events.deleted) {
        await docs.deleteOne({ _id: data.id });
      } else {
        const doc: TrackedDoc<F> = Object.assign({}, data.fields, {
          _id: data.id,
          id: data.id,
          created_at: previous?.created_at ?? event.metadata.at,
          updated_at: event.metadata.at,
          owner_id: previous?.owner_id ?? event.metadata.userId,
          // Every event folded here is the record's own: its stream version is the record's version.
          version: event.streamVersion,
        });
        // Kept from the previous document where the event's fields do not set them.
        for (const key in keep) if (!(key in doc)) Object.assign(doc, { [key]: previous?.[key] ?? keep[key] });
        await docs.put(doc);
      }
      await after?.(event, documents, previous);
    },
  };
}

/** A media's file as its item's summary lists it (`files`), or null when it has none. */
function fileEntry(media: TrackedDoc<MediaFields> | null): ItemFileEntry | null {
  if (!media || media.file === null || media.file === undefined || media.is_public === undefined) return null;
  return { id: media._id, is_public: media.is_public, thumbnails: media.file_status === 'made' };
}

/** The item's `files` with the media's entry replaced (or removed, with null), in media id order. */
async function setFileEntry(documents: DocumentStore, itemId: number, mediaId: number, entry: ItemFileEntry | null) {
  const item = await items(documents).findOne({ _id: itemId });
  if (!item) return;
  const others = (item.files ?? []).filter((listed) => listed.id !== mediaId);
  const files = entry ? [...others, entry].sort((a, b) => a.id - b.id) : others;
  await items(documents).updateOne({ _id: itemId }, { $set: { files } });
}

/**
 * Keeps the item's `media_ids` in step with its media, and its `files`: which of its media have
 * a file, whether public, whether their thumbnails exist (the item's `o:primary_media` and
 * `thumbnail_display_urls`, read with no look-up of its media).
 */
async function linkMediaToItem(
  event: Projected<ResourceEvent<MediaFields> | MediaFileEvent>,
  documents: DocumentStore,
  previous: TrackedDoc<MediaFields> | null,
): Promise<void> {
  const id = event.data.id;
  const current = event.type === MEDIA_EVENTS.deleted ? null : await mediaCollection(documents).findOne({ _id: id });
  const before = previous?.item_id;
  const now = current?.item_id;
  if (before !== undefined && before !== now) {
    await items(documents).updateOne({ _id: before }, { $pull: { media_ids: id } });
    await setFileEntry(documents, before, id, null);
  }
  if (now !== undefined) {
    await items(documents).updateOne({ _id: now }, { $addToSet: { media_ids: id } });
    const entry = fileEntry(current);
    if (entry || fileEntry(previous)) await setFileEntry(documents, now, id, entry);
  }
}

const mediaCollection = (documents: DocumentStore) =>
  documents.collection<TrackedDoc<MediaFields>>(PLATFORM_COLLECTIONS.media);

/**
 * A new file's status as the media document keeps it: an image is owed its derivatives, or
 * failed already when not even its header could be read; any other file is owed nothing.
 */
function ingestedStatus(file: MediaFile): FileStatus {
  if (!IIIF_IMAGE_TYPES.has(file.media_type)) return 'none';
  return isImageFile(file) ? 'pending' : 'failed';
}

/** A media's file events set its `file`, `derivatives` and `file_status`. */
const MEDIA_FILE_AMENDMENTS: Amendments<MediaFields, MediaFileEvent> = {
  types: Object.values(MEDIA_FILE_EVENTS),
  keys(_previous, event) {
    switch (event.type) {
      case 'MediaFileIngested':
        return { file: event.data.file, derivatives: null, file_status: ingestedStatus(event.data.file) };
      case 'MediaDerivativesMade':
        return { derivatives: event.data.derivatives, file_status: 'made' };
      case 'MediaDerivativesFailed':
        return { file_status: 'failed' };
      default: {
        const _exhaustive: never = event;
        return {};
      }
    }
  },
};

export const platformProjections: Projection[] = [
  resourceProjection<SiteFields>('platform-sites', PLATFORM_COLLECTIONS.sites, SITE_EVENTS),
  resourceProjection<ItemSetFields>('platform-item-sets', PLATFORM_COLLECTIONS.itemSets, ITEM_SET_EVENTS),
  resourceProjection<ItemFields>('platform-items', PLATFORM_COLLECTIONS.items, ITEM_EVENTS, {
    media_ids: [],
    files: [],
  }),
  resourceProjection<MediaFields, MediaFileEvent>(
    'platform-media',
    PLATFORM_COLLECTIONS.media,
    MEDIA_EVENTS,
    { file: null, derivatives: null, file_status: 'none' },
    linkMediaToItem,
    MEDIA_FILE_AMENDMENTS,
  ),
  resourceProjection<SitePageFields>('platform-site-pages', PLATFORM_COLLECTIONS.sitePages, {
    ...SITE_PAGE_EVENTS,
    updateLike: [SITE_PAGE_REVERTED],
  }),
];
