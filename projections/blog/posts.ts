import type { BlogPostCreated, BlogPostDeleted, BlogPostFields, BlogPostUpdated } from '../../contracts/blog/events.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { slugify } from '../../infra/text/slug.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { BLOG_COLLECTIONS, type SlugDoc } from './collections.js';
import { blogTags, blogTagSlugs } from './taxonomy.js';

export interface TagRef {
  id: number;
  name: string;
  slug: string;
}

/** A post as the read model keeps it; timestamps are ISO strings from event metadata. */
export interface BlogPostDoc extends BlogPostFields {
  _id: number;
  id: number;
  /** The stream version of the last of its own events folded in: its ETag's (app/conditional). */
  version?: number;
  created_at: string;
  updated_at: string;
  /** Newest-first order, then by id: published_at, or created_at (as `YYYY-MM-DD HH:MM:SS`) when never published. */
  sort_time: string;
  tag_refs: TagRef[];
  tag_slugs: string[];
  [key: string]: unknown;
}

/**
 * The fields looked up other than _id (the SQLite store indexes them): a category's posts, a slug, a post's comments.
 * Post lists are newest first (sort_time, then id, descending): the public list walks
 * (status, sort_time, id, published_at) and stops at its page; an author's or category's list
 * walks its own, and their totals count index entries without reading a post. The public lists'
 * indexes end with published_at so the rows a page skips are tested for `published_at <= now`
 * in the index: without it every skipped row was looked up (pages 100 to 300 of 100,000 posts,
 * each once: 6.4 ms at p50 over HTTP before, 3.0 to 4.6 after; the page's query alone 9 to 11 ms
 * against 1.2 to 2). (status, published_at) finds the scheduled posts a public total leaves out.
 * The text search (the lists' `search`) looks in title, excerpt and content. A site's or a
 * tag's posts are found by element indexes of site_ids and tag_slugs (a site's total counted
 * every post's array otherwise: about 300 ms over 100,000 posts).
 */
const POST_INDEXES = {
  indexes: [
    ['status', 'sort_time', 'id', 'published_at'],
    ['sort_time', 'id'],
    ['status', 'published_at'],
    ['published_at'],
    ['status', 'author_id', 'sort_time', 'id', 'published_at'],
    ['author_id', 'sort_time', 'id'],
    ['status', 'category_id', 'sort_time', 'id', 'published_at'],
    ['category_id', 'sort_time', 'id'],
  ],
  textSearch: { fields: ['title', 'excerpt', 'content'] },
  elementIndexes: ['site_ids', 'tag_slugs'],
} as const;

export const blogPosts = (d: DocumentStore) => d.collection<BlogPostDoc>(BLOG_COLLECTIONS.posts, POST_INDEXES);
export const blogPostSlugs = (d: DocumentStore) => d.collection<SlugDoc>(BLOG_COLLECTIONS.postSlugs);

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
