import type { DocumentStore } from '../../infra/document-store/port.js';
import {
  ITEM_EVENTS,
  ITEM_SET_EVENTS,
  MEDIA_EVENTS,
  SITE_EVENTS,
  SITE_PAGE_EVENTS,
  SITE_PAGE_REVERTED,
  versionedBy,
} from '../../commands/platform/kinds.js';
import type { ResourceEventNames } from '../../commands/platform/resource-decider.js';
import type {
  ItemFields,
  ItemSetFields,
  MediaFields,
  SiteFields,
  SitePageFields,
} from '../../commands/platform/fields.js';
import { PLATFORM_COLLECTIONS, items } from '../../queries/platform/documents.js';
import { defineHandlerProjection, type Projected, type Projection } from '../projection.js';

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

/** A resource kind's event, named by kind at run time (commands/platform/kinds.ts); `F` is the kind's fields. */
interface ResourceEvent<F extends object> {
  type: string;
  data: { id: number; fields?: F };
}

/**
 * Folds one resource kind's Created/Updated/Deleted events into its collection. Each event
 * carries the full fields, so the document is rewritten whole (idempotent on redelivery).
 * `keep` lists document keys that other projections maintain and a rewrite must preserve.
 * `updateLike` names further events that carry the full fields and rewrite the document like an
 * update (a site page's SitePageReverted).
 */
function resourceProjection<F extends object>(
  name: string,
  collection: string,
  events: ResourceEventNames & { updateLike?: readonly string[] },
  keep: Record<string, unknown> = {},
  after?: (
    event: Projected<ResourceEvent<F>>,
    documents: DocumentStore,
    previous: TrackedDoc<F> | null,
  ) => Promise<void>,
): Projection<ResourceEvent<F>> {
  // Several documents for a medium (its item's media_ids too), and a kind's own keys kept: the escape hatch.
  return defineHandlerProjection({
    name,
    handles: [...versionedBy(events, ...(events.updateLike ?? []))],
    async handle(event: Projected<ResourceEvent<F>>, documents) {
      const data = event.data;
      const docs = documents.collection<TrackedDoc<F>>(collection);
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
  });
}

/** Keeps the item's `media_ids` in step with its media. */
async function linkMediaToItem(
  event: Projected<ResourceEvent<MediaFields>>,
  documents: DocumentStore,
  previous: TrackedDoc<MediaFields> | null,
): Promise<void> {
  const data = event.data;
  const before = previous?.item_id;
  const now = event.type === MEDIA_EVENTS.deleted ? undefined : data.fields?.item_id;
  if (before !== undefined && before !== now)
    await items(documents).updateOne({ _id: before }, { $pull: { media_ids: data.id } });
  if (now !== undefined) await items(documents).updateOne({ _id: now }, { $addToSet: { media_ids: data.id } });
}

export const platformProjections: Projection[] = [
  resourceProjection<SiteFields>('platform-sites', PLATFORM_COLLECTIONS.sites, SITE_EVENTS),
  resourceProjection<ItemSetFields>('platform-item-sets', PLATFORM_COLLECTIONS.itemSets, ITEM_SET_EVENTS),
  resourceProjection<ItemFields>('platform-items', PLATFORM_COLLECTIONS.items, ITEM_EVENTS, { media_ids: [] }),
  resourceProjection<MediaFields>('platform-media', PLATFORM_COLLECTIONS.media, MEDIA_EVENTS, {}, linkMediaToItem),
  resourceProjection<SitePageFields>('platform-site-pages', PLATFORM_COLLECTIONS.sitePages, {
    ...SITE_PAGE_EVENTS,
    updateLike: [SITE_PAGE_REVERTED],
  }),
];
