import type { BlogPostCreated, BlogPostDeleted, BlogPostUpdated } from '../../contracts/blog/events.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { slugify } from '../../infra/text/slug.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import {
  blogPosts,
  blogPostSlugs,
  blogTags,
  blogTagSlugs,
  type BlogPostDoc,
  type TagRef,
} from '../../contracts/blog/documents.js';

/** When a post sorts by: its publish time, else its creation time, in the same `YYYY-MM-DD HH:MM:SS` form. */
export function postSortTime(publishedAt: string | null, createdAt: string): string {
  return publishedAt ?? sqlTimestamp(createdAt);
}

/** Tags never change once created, so a post keeps their id, name and slug with it. */
async function tagRefs(documents: DocumentStore, names: string[]): Promise<TagRef[]> {
  const refs: TagRef[] = [];
  for (const name of names) {
    const entry = await blogTagSlugs(documents).findOne({ _id: slugify(name) });
    const tag = entry ? await blogTags(documents).findOne({ _id: entry.id }) : null;
    if (tag) refs.push({ id: tag.id, name: tag.name, slug: tag.slug });
  }
  return refs;
}

/** Keeps the slug index in step: the old slug is released only if it still points at this post. */
async function indexSlug(
  documents: DocumentStore,
  id: number,
  previous: BlogPostDoc | null,
  slug: string | null,
): Promise<void> {
  if (
    previous &&
    previous.slug !== slug &&
    (await blogPostSlugs(documents).findOne({ _id: previous.slug }))?.id === id
  ) {
    await blogPostSlugs(documents).deleteOne({ _id: previous.slug });
  }
  if (slug !== null) await blogPostSlugs(documents).put({ _id: slug, id });
}

async function savePost(event: Projected<BlogPostCreated | BlogPostUpdated>, documents: DocumentStore): Promise<void> {
  const { id, fields } = event.data;
  const previous = await blogPosts(documents).findOne({ _id: id });
  await indexSlug(documents, id, previous, fields.slug);
  const createdAt = previous?.created_at ?? event.metadata.at;
  const refs = await tagRefs(documents, fields.tags);
  const doc = copyWith(fields, {
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

/**
 * Posts, their slug index, and a version number the list queries use to know when their
 * cached order is stale: three collections, so the escape hatch.
 */
export const blogPostsProjection = defineHandlerProjection({
  name: 'blog-posts',
  handles: ['BlogPostCreated', 'BlogPostUpdated', 'BlogPostDeleted'],
  async handle(event: Projected<BlogPostCreated | BlogPostUpdated | BlogPostDeleted>, documents) {
    if (event.type === 'BlogPostDeleted') {
      await indexSlug(documents, event.data.id, await blogPosts(documents).findOne({ _id: event.data.id }), null);
      await blogPosts(documents).deleteOne({ _id: event.data.id });
    } else await savePost(event, documents);
  },
});
