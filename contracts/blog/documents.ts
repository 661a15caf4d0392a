import type { DocumentStore } from '../../infra/document-store/port.js';
import type { BlogCategoryFields, BlogCommentFields, BlogPostFields, BlogSettings, BlogTagFields } from './events.js';

/*
 * The blog's read models: each document and its collection, as the projections (projections/blog/)
 * write them and the queries (queries/blog/) and commands read them.
 */

/** The blog's read-model collections by name (a backup or a rebuild names them too). */
export const BLOG_COLLECTIONS = {
  posts: 'blog_posts',
  categories: 'blog_categories',
  tags: 'blog_tags',
  comments: 'blog_comments',
  settings: 'blog_settings',
  postSlugs: 'blog_post_slugs',
  tagSlugs: 'blog_tag_slugs',
} as const;

/** Slug to id, so slug lookups are a key read rather than a scan (posts and tags). */
export interface SlugDoc {
  _id: string;
  id: number;
  [key: string]: unknown;
}

export interface BlogCategoryDoc extends BlogCategoryFields {
  _id: number;
  id: number;
  /** The stream version of the last of its own events folded in: its ETag's (app/conditional). */
  version?: number;
  name_sort: string;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

export interface BlogTagDoc extends BlogTagFields {
  _id: number;
  id: number;
  name_sort: string;
  [key: string]: unknown;
}

/** A category is looked up by its slug (the SQLite store indexes it). */
const CATEGORY_INDEXES = { indexes: ['slug'] } as const;

export const blogCategories = (d: DocumentStore) =>
  d.collection<BlogCategoryDoc>(BLOG_COLLECTIONS.categories, CATEGORY_INDEXES);
export const blogTags = (d: DocumentStore) => d.collection<BlogTagDoc>(BLOG_COLLECTIONS.tags);
export const blogTagSlugs = (d: DocumentStore) => d.collection<SlugDoc>(BLOG_COLLECTIONS.tagSlugs);

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

export interface BlogCommentDoc extends BlogCommentFields {
  _id: number;
  id: number;
  /** The stream version of the last of its own events folded in: its ETag's (app/conditional). */
  version?: number;
  posted_at: string;
  updated_at: string;
  [key: string]: unknown;
}

/** A post's comments and the moderation queue are looked up by these (the SQLite store indexes them). */
const COMMENT_INDEXES = { indexes: ['post_id', 'status'] } as const;

export const blogComments = (d: DocumentStore) =>
  d.collection<BlogCommentDoc>(BLOG_COLLECTIONS.comments, COMMENT_INDEXES);

export interface BlogSettingsDoc extends BlogSettings {
  _id: string;
  [key: string]: unknown;
}

export const SETTINGS_ID = 'settings';

export const blogSettings = (d: DocumentStore) => d.collection<BlogSettingsDoc>(BLOG_COLLECTIONS.settings);
