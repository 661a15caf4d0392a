import { BLOG_POST_VERSIONED, type BlogPostCreated, type BlogPostDeleted, type BlogPostFields, type BlogPostUpdated } from '../../commands/blog/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { slugify } from '../../infra/text/slug.js';
import { blogMeta, blogPostSlugs, blogPosts, POSTS_VERSION_ID, type BlogPostDoc, type TagRef } from '../../queries/blog/documents.js';
import { findTagBySlug } from '../../queries/blog/taxonomy.js';
import { defineProjection } from '../projection.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

/** When a post sorts by: its publish time, else its creation time, in the same `YYYY-MM-DD HH:MM:SS` form. */
export function postSortTime(publishedAt: string | null, createdAt: string): string {
  return publishedAt ?? sqlTimestamp(createdAt);
}

/** Tags never change once created, so a post keeps their id, name and slug with it. */
async function tagRefs(documents: DocumentStore, names: string[]): Promise<TagRef[]> {
  const refs: TagRef[] = [];
  for (const name of names) {
    const tag = await findTagBySlug(documents, slugify(name));
    if (tag) refs.push({ id: tag.id, name: tag.name, slug: tag.slug });
  }
  return refs;
}

/** Keeps the slug index in step: the old slug is released only if it still points at this post. */
async function indexSlug(documents: DocumentStore, id: number, previous: BlogPostDoc | null, slug: string | null): Promise<void> {
  if (previous && previous.slug !== slug && (await blogPostSlugs(documents).findOne({ _id: previous.slug }))?.id === id) {
    await blogPostSlugs(documents).deleteOne({ _id: previous.slug });
  }
  if (slug !== null) await blogPostSlugs(documents).put({ _id: slug, id });
}

async function savePost(event: StoredEvent, documents: DocumentStore, id: number, fields: BlogPostFields): Promise<void> {
  const previous = await blogPosts(documents).findOne({ _id: id });
  await indexSlug(documents, id, previous, fields.slug);
  const createdAt = previous?.created_at ?? event.metadata.at;
  const refs = await tagRefs(documents, fields.tags);
  // Object.assign, not `{ ...fields, key: value }`: V8 adds keys after a spread on a slow path (see routes/json-ld.ts).
  const doc = Object.assign({} as BlogPostDoc, fields, {
    _id: id,
    id,
    created_at: createdAt,
    updated_at: event.metadata.at,
    sort_time: postSortTime(fields.published_at, createdAt),
    tag_refs: refs,
    tag_slugs: refs.map((t) => t.slug),
    version: event.streamVersion,
  });
  await blogPosts(documents).put(doc);
}

/** Posts, with a version number the list queries use to know when their cached order is stale. */
export const blogPostsProjection = defineProjection({
  name: 'blog-posts',
  handles: [...BLOG_POST_VERSIONED],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as BlogPostCreated | BlogPostUpdated | BlogPostDeleted;
    if (event.type === 'BlogPostDeleted') {
      await indexSlug(documents, event.data.id, await blogPosts(documents).findOne({ _id: event.data.id }), null);
      await blogPosts(documents).deleteOne({ _id: event.data.id });
    } else await savePost(stored, documents, event.data.id, event.data.fields);
    await blogMeta(documents).put({ _id: POSTS_VERSION_ID, version: stored.position });
  },
});
