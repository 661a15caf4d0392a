import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { DocumentStore } from '../../infra/document-store/port.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import type { ResourceType } from '../../infra/vector-index/port.js';
import { items } from '../../contracts/platform/documents.js';
import { BLOG_POST_EVENTS } from './blog-posts.js';
import type { ResourceRef } from '../../contracts/chatbot/documents.js';

const lifeCycle = (kind: string) => [`${kind}Created`, `${kind}Updated`, `${kind}Deleted`];

/** Event types that change what the index should hold for a resource. */
export const INDEXED_EVENT_TYPES = new Map<string, ResourceType>([
  ...lifeCycle('Item').map((type) => [type, 'item'] as const),
  ...lifeCycle('Media').map((type) => [type, 'media'] as const),
  ...[...lifeCycle('SitePage'), 'SitePageReverted'].map((type) => [type, 'site_page'] as const),
  ...BLOG_POST_EVENTS.map((type) => [type, 'blog_post'] as const),
]);

/** What this reads of an indexed event's data: any of the kinds' events carries at least its record's id. */
const IndexedData = Type.Object({ id: Type.Integer() });
/** A created post's status, when its event carries one. */
const CreatedWithStatus = Type.Object({ fields: Type.Object({ status: Type.Literal('published') }) });

/**
 * The resources whose index entry an event may change. An item's change reaches its media
 * too (they inherit its sets, sites and visibility). The index job reads the state when it
 * runs, so a ref says only "look again", never what changed.
 */
export async function refsToReindex(event: StoredEvent, documents: DocumentStore): Promise<ResourceRef[]> {
  const type = INDEXED_EVENT_TYPES.get(event.type);
  if (!type) return [];
  if (!Value.Check(IndexedData, event.data)) return [];
  const id = event.data.id;
  // A post created unpublished has nothing in the index yet, and a later publish is its own
  // event (or, for a publish time still ahead, the scheduled-posts sweep's).
  if (event.type === 'BlogPostCreated' && !Value.Check(CreatedWithStatus, event.data)) return [];
  const refs: ResourceRef[] = [{ type, id }];
  if (type === 'item') {
    // A deleted item's media are deleted by their own events, so its media_ids are enough.
    const item = await items(documents).findOne({ _id: id });
    for (const mediaId of item?.media_ids ?? []) refs.push({ type: 'media', id: mediaId });
  }
  return refs;
}
